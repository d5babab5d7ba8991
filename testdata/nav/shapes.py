"""Shapes and the things that draw them."""


class Shape:
    """Base of every shape."""

    def area(self):
        raise NotImplementedError


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return 3.14159 * self.r * self.r


class Square(Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


def total_area(shapes):
    """Sum of the areas."""
    return sum(s.area() for s in shapes)


def report(shapes):
    return "total: %f" % total_area(shapes)


def main():
    print(report([Circle(1), Square(2)]))
