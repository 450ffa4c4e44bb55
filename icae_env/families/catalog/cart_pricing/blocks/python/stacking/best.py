def stack(coupons, subtotal, value):
    values = [value(coupon, subtotal) for coupon in coupons]
    best = values.index(max(values)) if values else -1
    return [v if i == best else None for i, v in enumerate(values)]
