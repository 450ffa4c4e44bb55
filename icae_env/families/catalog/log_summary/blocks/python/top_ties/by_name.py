def tie_key(service, first):
    return service
