def attempt_limit(attempts):
    return attempts
