from shop.cart import Cart
from shop.store import checkout


def test_checkout():
    cart = Cart()
    cart.add("tea", 4.0, 2)
    assert checkout(cart) == 9.6


def test_checkout_discount():
    cart = Cart()
    cart.add("tea", 10.0)
    cart.offer(50)
    assert checkout(cart) == 6.0
