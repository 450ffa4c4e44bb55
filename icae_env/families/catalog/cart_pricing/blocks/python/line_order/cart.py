def order_lines(lines):
    return list(lines)
