def row_number(record):
    return record.line
