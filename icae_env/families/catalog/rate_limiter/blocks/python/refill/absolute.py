def refill(last, now, created, limit):
    tick = limit.tick_ms
    return (now // tick - last // tick) * limit.refill_rate * tick


def wait_ms(deficit, now, created, limit):
    tick = limit.tick_ms
    ticks = -(-deficit // (limit.refill_rate * tick))
    return (now // tick + ticks) * tick - now
