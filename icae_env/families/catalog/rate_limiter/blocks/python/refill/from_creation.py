def refill(last, now, created, limit):
    tick = limit.tick_ms
    return ((now - created) // tick - (last - created) // tick) * limit.refill_rate * tick


def wait_ms(deficit, now, created, limit):
    tick, since = limit.tick_ms, now - created
    ticks = -(-deficit // (limit.refill_rate * tick))
    return (since // tick + ticks) * tick - since
