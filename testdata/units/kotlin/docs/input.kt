/**
 * A user account.
 * Holds the login state.
 */
class Account {
    /** Number of failed logins. */
    private var failures = 0

    /**
     * Logs the user in.
     *
     * @param password the secret
     */
    fun login(password: String): Boolean {
        return check(password)
    }

    // Plain comment above a method.
    fun logout() {}

    /** Annotated method keeps its doc. */
    @Deprecated("use logout")
    fun reset() {}

    // not attached: blank line follows

    fun lock() {}

    /** Overload one. */
    fun check(): Boolean = false

    /** Overload two. */
    fun check(password: String): Boolean = password.isNotEmpty()
}
