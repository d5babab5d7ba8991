"""JSON encoder and decoder."""
from .decoder import JSONDecoder
from .encoder import JSONEncoder

def dumps(obj):
    return JSONEncoder().encode(obj)

def loads(s):
    return JSONDecoder().decode(s)
