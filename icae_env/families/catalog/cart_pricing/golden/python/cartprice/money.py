"""Amounts: exact cents from JSON numbers, rates, and how the shop prints
money."""

import math
from decimal import Decimal
from fractions import Fraction

from .rules import group_thousands, round_cents


def exact(value):
    """The exact value of a JSON number (None for anything else)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float):
        return Fraction(Decimal(repr(value))) if math.isfinite(value) else None
    return Fraction(value)


def has_decimals(value, places):
    """Whether ``value`` is a number with at most ``places`` decimals."""
    number = exact(value)
    return number is not None and (number * 10**places).denominator == 1


def is_amount(value):
    """An amount of money: a number >= 0 with at most two decimals."""
    return has_decimals(value, 2) and exact(value) >= 0


def to_cents(value):
    return int(exact(value) * 100)


def percent_of(cents, rate):
    """``rate`` percent of an amount in cents, rounded to a cent by the house rule."""
    return round_cents(Fraction(cents) * rate / 100)


def money(cents):
    sign = "-" if cents < 0 else ""
    whole, part = divmod(abs(cents), 100)
    return f"{sign}{group_thousands(whole)}.{part:02d}"


def minus(cents):
    """A discount: ``-3.30``, or ``0.00`` when nothing is taken off."""
    return f"-{money(cents)}" if cents else money(0)
