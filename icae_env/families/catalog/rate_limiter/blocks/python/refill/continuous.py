def refill(last, now, created, limit):
    return (now - last) * limit.refill_rate


def wait_ms(deficit, now, created, limit):
    return -(-deficit // limit.refill_rate)
