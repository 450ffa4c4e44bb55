"""Prices: the lines (combined and bulk-priced by the house rules), the
coupons, shipping, tax and the total."""

from dataclasses import dataclass

from .money import percent_of
from .rules import BULK_MIN_QTY, code_key, combine, free_basis, ships_free, stack, tax_base

BULK_PERCENT = 10


@dataclass(frozen=True)
class Priced:
    name: str
    category: object
    price: int
    qty: int
    net: int


@dataclass(frozen=True)
class Totals:
    subtotal: int
    discount: int
    shipping: int
    free: bool
    tax: int
    total: int


def price_lines(lines):
    """The priced lines: quantity x unit price, less the bulk discount when the house gives one."""
    priced = []
    for line in combine(lines):
        gross = line.price * line.qty
        bulk = BULK_MIN_QTY is not None and line.qty >= BULK_MIN_QTY
        off = percent_of(gross, BULK_PERCENT) if bulk else 0
        priced.append(Priced(line.name, line.category, line.price, line.qty, gross - off))
    return priced


def match_codes(order):
    """Per entered code, in entry order: (label, coupon or None, status of an unmatched code)."""
    table = {}
    for coupon in order.coupons:
        table.setdefault(code_key(coupon.code), coupon)
    entries, used = [], set()
    for text in order.codes:
        key = code_key(text)
        coupon = table.get(key)
        if coupon is None:
            entries.append((text, None, "unknown code"))
        elif key in used:
            entries.append((coupon.code, None, "already entered"))
        else:
            used.add(key)
            entries.append((coupon.code, coupon, None))
    return entries


def coupon_value(coupon, base):
    """What ``coupon`` takes off ``base`` on its own (never more than ``base``)."""
    if coupon.percent is not None:
        return percent_of(base, coupon.percent)
    return min(coupon.amount, base)


def shipping_cost(shipping, subtotal, discount):
    """(cost, free) of a shipping option for this order."""
    if shipping is None:
        return 0, False
    if shipping.free_from is not None and ships_free(free_basis(subtotal, discount), shipping.free_from):
        return 0, True
    return shipping.cost, False


@dataclass(frozen=True)
class PricedOrder:
    lines: list
    entries: list
    amounts: list


def price_order(order):
    """The priced lines, the matched codes and what each matched coupon takes off."""
    lines = price_lines(order.lines)
    entries = match_codes(order)
    coupons = [coupon for _, coupon, _ in entries if coupon is not None]
    amounts = stack(coupons, sum(p.net for p in lines), coupon_value)
    return PricedOrder(lines, entries, amounts)


def totals(order, priced, shipping):
    subtotal = sum(p.net for p in priced.lines)
    discount = sum(a for a in priced.amounts if a)
    cost, free = shipping_cost(shipping, subtotal, discount)
    tax = percent_of(tax_base(subtotal, discount, cost), order.tax_rate)
    return Totals(subtotal, discount, cost, free, tax, subtotal - discount + cost + tax)
