/// A user account.
/// Holds the login state.
class Account {
    /// Number of failed logins.
    private var failures = 0

    /**
     Logs the user in.

     - Parameter password: the secret
     */
    func login(password: String) -> Bool {
        return check(password)
    }

    // Plain comment above a method.
    func logout() {}

    /// Attributed method keeps its doc.
    @discardableResult
    func reset() -> Bool { true }

    // not attached: blank line follows

    func lock() {}

    /// Overload one.
    func check() -> Bool { false }

    /// Overload two.
    func check(_ password: String) -> Bool { !password.isEmpty }
}
