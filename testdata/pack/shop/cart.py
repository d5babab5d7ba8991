"""A shopping cart."""
from shop.pricing import Discount, apply_discount, with_tax


class Item:
    def __init__(self, name, price, qty=1):
        self.name = name
        self.price = price
        self.qty = qty

    def subtotal(self):
        return self.price * self.qty


class Cart:
    """Items and an optional discount."""

    def __init__(self):
        self.items = []
        self.discount = None

    def add(self, name, price, qty=1):
        self.items.append(Item(name, price, qty))

    def total(self):
        """The amount to pay, tax included."""
        price = sum(item.subtotal() for item in self.items)
        price = apply_discount(price, self.discount)
        return with_tax(price)

    def offer(self, percent):
        self.discount = Discount(percent)
