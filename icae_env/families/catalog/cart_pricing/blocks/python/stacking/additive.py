def stack(coupons, subtotal, value):
    amounts, left = [], subtotal
    for coupon in coupons:
        amounts.append(min(value(coupon, subtotal), left))
        left -= amounts[-1]
    return amounts
