SAFE = re.compile(r"[A-Za-z0-9_./:@%+,-]+")


def env_value(value):
    return value if SAFE.fullmatch(value) else "'" + value.replace("'", "'\\''") + "'"
