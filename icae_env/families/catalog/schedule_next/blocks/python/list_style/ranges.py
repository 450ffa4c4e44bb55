def listing(values, labels, complete):
    parts, i = [], 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[j + 1] == values[j] + 1:
            j += 1
        parts += [f"{labels[i]}-{labels[j]}"] if j - i >= 2 else labels[i : j + 1]
        i = j + 1
    return ",".join(parts)
