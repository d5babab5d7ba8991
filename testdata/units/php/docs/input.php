<?php

/**
 * A user account.
 * Holds the login state.
 */
class Account
{
    /** @var int Number of failed logins. */
    private int $failures = 0;

    /**
     * Logs the user in.
     *
     * @param string $password the secret
     */
    public function login(string $password): bool
    {
        return $this->check($password);
    }

    // Plain comment above a method.
    public function logout(): void {}

    /** Attributed method keeps its doc. */
    #[Deprecated]
    public function reset(): void {}

    // not attached: blank line follows

    public function lock(): void {}
}
