"""Models of the demo application."""


class Account:
    """A stored account with a token."""

    def __init__(self, name, token):
        self.name = name
        self.token = token

    def validate_token(self, token):
        """True when token matches the account's token."""
        return token == self.token

    def _secret(self):
        return self.token[::-1]


def find_account(accounts, name):
    """Returns the account called name, or None."""
    for account in accounts:
        if account.name == name:
            return account
    return None
