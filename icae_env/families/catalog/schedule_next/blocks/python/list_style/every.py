def listing(values, labels, complete):
    return "every value" if complete else ",".join(labels)
