def after_deny(level):
    return level
