def line_order(rows):
    return sorted(rows, key=lambda row: (row[1] is None, -(row[1] or 0), row[0]))
