namespace Accounts
{
    /// <summary>
    /// A user account.
    /// </summary>
    public class Account
    {
        /// <summary>Number of failed logins.</summary>
        private int failures;

        /// <summary>
        /// Logs the user in.
        /// </summary>
        /// <param name="password">the secret</param>
        public bool Login(string password)
        {
            return Check(password);
        }

        /** Block doc comment. */
        public void Logout()
        {
        }

        /// <summary>Attributed method keeps its doc.</summary>
        [Obsolete("use Logout")]
        public void Reset()
        {
        }

        // not attached: blank line follows

        public void Lock()
        {
        }

        /// <summary>Overload one.</summary>
        public bool Check() => false;

        /// <summary>Overload two.</summary>
        public bool Check(string password) => password.Length > 0;
    }
}
