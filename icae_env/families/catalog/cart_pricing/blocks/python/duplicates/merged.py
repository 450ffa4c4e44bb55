REJECT_DUPLICATES = False


def combine(lines):
    merged = {}
    for line in lines:
        first = merged.get(line.sku)
        merged[line.sku] = line if first is None else replace(first, qty=first.qty + line.qty)
    return list(merged.values())
