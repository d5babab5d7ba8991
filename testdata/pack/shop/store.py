"""Checkout."""

LOG = []


def log(msg):
    LOG.append(msg)


def checkout(cart):
    """Charges the cart and logs the amount."""
    amount = cart.total()
    log("charged %.2f" % amount)
    return amount


def refund(amount):
    log("refunded %.2f" % amount)
    return -amount
