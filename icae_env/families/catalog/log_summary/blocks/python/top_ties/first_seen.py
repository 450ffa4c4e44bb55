def tie_key(service, first):
    return first
