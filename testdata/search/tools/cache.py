"""Small caches used by the tools."""


class LRUCache:
    """Least recently used cache that discards the oldest entry when full."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.items = {}

    def get(self, key):
        """Returns the cached value for key, or None."""
        value = self.items.pop(key, None)
        if value is not None:
            self.items[key] = value
        return value

    def put(self, key, value):
        """Stores value under key, evicting when over capacity."""
        self.items.pop(key, None)
        self.items[key] = value
        if len(self.items) > self.capacity:
            self._evict()

    def _evict(self):
        oldest = next(iter(self.items))
        del self.items[oldest]


def tokenize_line(line):
    """Splits a line of text into lowercase words."""
    return [w.lower() for w in line.split()]
