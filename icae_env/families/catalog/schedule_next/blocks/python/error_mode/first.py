def report(fields):
    return fields[0][:1] if fields else []
