"""Amounts as integer cents: parsing, formatting and averaging."""

import re
from fractions import Fraction

from .rules import THOUSANDS, round_cents

AMOUNT = re.compile(r"^[0-9]+(\.[0-9]{1,2})?$")


def parse_amount(value):
    """Cents of a non-negative amount given as "12.5", "12.50", "12" or an integer; None when malformed."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value * 100 if value >= 0 else None
    if not isinstance(value, str) or not AMOUNT.match(value):
        return None
    whole, _, part = value.partition(".")
    return int(whole) * 100 + int((part + "00")[:2])


def money(cents):
    """Cents as text: thousands grouped by the house separator, two decimals."""
    whole, part = divmod(cents, 100)
    digits = str(whole)
    groups = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    return THOUSANDS.join(groups) + "." + str(part).zfill(2)


def average(cents_list):
    """The average of some amounts, in whole cents (the house rounding)."""
    return round_cents(Fraction(sum(cents_list), len(cents_list)))
