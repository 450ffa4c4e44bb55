def after_deny(level):
    return 0
