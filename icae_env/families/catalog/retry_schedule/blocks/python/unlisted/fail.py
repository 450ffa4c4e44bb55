def unlisted(outcomes):
    return None
