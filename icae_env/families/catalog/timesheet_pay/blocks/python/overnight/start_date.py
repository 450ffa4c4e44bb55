def day_parts(day, start, end, pause):
    return [(day, end - start - pause)]
