"""Signatures that fold short: long defaults, long annotations, overloads."""
import re
import typing as t

WHITESPACE = re.compile(r"\s+")


def scan(s, idx=0, _w=WHITESPACE.match, sep: str = ", "):
    return _w(s, idx)


def configure(name: str, default_map: t.Optional[t.Dict[str, t.Any]] = None, retries: int = 3) -> None:
    pass


def handlers() -> t.Dict[str, t.Callable[[t.Any, t.Optional[str]], t.Awaitable[None]]]:
    return {}


class Loader:
    def __init__(self, path, encoding: t.Optional[str] = "utf-8"):  # type: ignore
        self.path = path

    @t.overload
    def get(self, key: str, default: None = None) -> t.Optional[str]: ...

    @t.overload
    def get(self, key: str, default: str) -> str: ...

    def get(self, key, default=None):
        return default

    @classmethod
    def open(cls, path) -> "Loader":
        return cls(path)

    def close(self) -> None:
        pass


def test_scan():
    assert scan("a b")
