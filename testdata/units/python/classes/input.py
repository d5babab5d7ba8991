"""Models."""
from dataclasses import dataclass


class Base:
    """Base of all models."""

    registry = {}

    def save(self):
        """Saves the model."""
        return self._write()

    def _write(self):
        pass


@dataclass
class User(Base):
    """A user.

    Has a name and an age.
    """
    name: str
    age: int = 0

    class Meta:
        table = "users"

    def __init__(self, name):
        super().__init__()
        self.name = name

    @property
    def title(self):
        return self.name.title()

    @staticmethod
    def make(name):
        return User(name)

    def __private(self):
        pass
