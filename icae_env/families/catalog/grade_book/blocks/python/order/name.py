def line_order(rows):
    return sorted(rows, key=lambda row: row[0])
