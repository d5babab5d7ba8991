/**
 * A user account.
 * Holds the login state.
 */
public class Account {
    /** Number of failed logins. */
    private int failures;

    /**
     * Logs the user in.
     *
     * @param password the secret
     * @return true on success
     */
    public boolean login(String password) {
        return check(password);
    }

    // Plain line comment above a method.
    // Second line.
    public void logout() {
    }

    /** Annotated method keeps its doc. */
    @Deprecated
    public void reset() {
    }

    /* not attached: blank line follows */

    public void lock() {
    }

    /** Overload with no argument. */
    public boolean check() {
        return false;
    }

    /** Overload with one argument. */
    public boolean check(String password) {
        return password.isEmpty();
    }
}
