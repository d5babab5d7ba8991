"""Prices: discounts and tax."""

TAX_RATE = 0.2


class Discount:
    """A percentage off, capped."""

    def __init__(self, percent, cap=None):
        self.percent = percent
        self.cap = cap

    def amount(self, price):
        off = price * self.percent / 100
        if self.cap is not None and off > self.cap:
            off = self.cap
        return off


def apply_discount(price, discount):
    """The price after the discount, never below zero."""
    if discount is None:
        return price
    return max(0, price - discount.amount(price))


def with_tax(price):
    return round(price * (1 + TAX_RATE), 2)
