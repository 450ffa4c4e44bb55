def line_order(rows):
    return rows
