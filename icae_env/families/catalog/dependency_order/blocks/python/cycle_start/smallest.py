def start_at(loop):
    at = loop.index(min(loop))
    return loop[at:] + loop[:at]
