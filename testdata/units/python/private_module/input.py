"""Helpers private to the package: nothing here is meant to be imported."""

_CACHE = {}


def _key(path, mode):
    return (path, mode)


def _load(path, mode="r"):
    k = _key(path, mode)
    if k not in _CACHE:
        with open(path, mode) as f:
            _CACHE[k] = f.read()
    return _CACHE[k]


class _Entry:
    def __init__(self, path):
        self.path = path
