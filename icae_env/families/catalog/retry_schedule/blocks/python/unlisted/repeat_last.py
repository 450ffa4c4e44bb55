def unlisted(outcomes):
    return outcomes[-1] if outcomes else None
