import os
import os.path as osp
from . import helpers
from ..core import engine as eng

MAX_SIZE = 1024
_cache = {}
default_name = "x"

try:
    import ujson as json
except ImportError:
    json = None


# Reads a file.
# Returns its text.
def read(path, *, encoding="utf-8"):
    with open(path, encoding=encoding) as f:
        return f.read()


async def fetch(url):
    """Fetches a URL."""
    data = await helpers.get(url)
    return data


def _helper():
    def inner(x):
        return x * 2
    return inner(osp.join("a", "b"))


def test_read():
    assert read(__file__)


square = lambda v: v * v
