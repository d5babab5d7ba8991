class JSONEncoder:
    def encode(self, o):
        return str(o)
