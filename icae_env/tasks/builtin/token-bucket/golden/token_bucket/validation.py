"""Small JSON type predicates shared by config and event parsing."""


def is_int(value: object) -> bool:
    """True for JSON integers (booleans are not integers)."""
    return isinstance(value, int) and not isinstance(value, bool)
