def env_value(value):
    return value
