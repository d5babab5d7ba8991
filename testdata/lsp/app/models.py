"""Accounts and their tokens."""


class Account:
    """A user account."""

    def __init__(self, name):
        self.name = name
        self.tokens = []

    def validate_token(self, token):
        """True when the token belongs to this account."""
        return token in self.tokens


def make_account(name):
    return Account(name)
