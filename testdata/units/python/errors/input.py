def ok():
    return 1


def broken(:
    return 2


class After:
    def method(self):
        return ok()
