def summary(rows, errors):
    return f"summary: {rows} rows, {errors} errors"
