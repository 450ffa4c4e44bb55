def stack(coupons, subtotal, value):
    amounts, left = {}, subtotal
    for index in sorted(range(len(coupons)), key=lambda i: coupons[i].percent is not None):
        amounts[index] = min(value(coupons[index], left), left)
        left -= amounts[index]
    return [amounts[i] for i in range(len(coupons))]
