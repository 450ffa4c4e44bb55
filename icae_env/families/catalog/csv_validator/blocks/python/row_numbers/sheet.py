def row_number(record):
    return record.index + 1
