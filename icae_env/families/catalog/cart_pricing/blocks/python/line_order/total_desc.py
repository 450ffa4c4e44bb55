def order_lines(lines):
    return sorted(lines, key=lambda line: -line.net)
