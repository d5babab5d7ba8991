"""Accounts."""


class Account:
    """A user account."""

    def __init__(self, name):
        self.name = name

    def greeting(self):
        return "hello " + self.nme


def main():
    acc = Account("ada")
    print(acc.greeting())


main()
