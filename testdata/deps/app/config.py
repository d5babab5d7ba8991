import json

json = None

def load(path):
    import json as j
    return j.loads(open(path).read())
