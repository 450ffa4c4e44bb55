"""The Python golden of ``cart-pricing``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "cartprice/__init__.py": '''"""Cart pricing: receipts, order totals, coupons, shipping options and
cart checks for a small online shop."""

from .app import handle

__all__ = ["handle"]
''',
    "cartprice/money.py": '''"""Amounts: exact cents from JSON numbers, rates, and how the shop prints
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
''',
    "cartprice/request.py": '''"""The request and its checks, in a fixed order (the house says how many
problems one answer reports)."""

import json
from dataclasses import dataclass

from .money import exact, has_decimals, is_amount, to_cents
from .rules import REJECT_DUPLICATES, REPORT_ALL

OPS = ("receipt", "total", "coupons", "shipping", "check")
MAX_QTY = 999
MAX_TAX = 30
TEXT = "a non-empty string"
AMOUNT = "an amount >= 0 with at most 2 decimals"


class InvalidRequest(Exception):
    """The request is invalid (its problems, in the checking order)."""

    def __init__(self, problems):
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Line:
    sku: str
    name: str
    price: int
    qty: int
    category: object


@dataclass(frozen=True)
class Coupon:
    code: str
    percent: object
    amount: int


@dataclass(frozen=True)
class Shipping:
    method: str
    cost: int
    free_from: object


@dataclass(frozen=True)
class Order:
    op: str
    ref: str
    lines: tuple
    coupons: tuple
    codes: tuple
    shipping: object
    options: tuple
    tax_rate: object


class Problems:
    """Collects the problems; under the house rule the first one ends the reading."""

    def __init__(self):
        self.found = []

    def add(self, text):
        self.found.append(text)
        if not REPORT_ALL:
            raise InvalidRequest(self.found)


def is_text(value):
    return isinstance(value, str) and value.strip() != ""


def is_qty(value):
    return isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_QTY


LINE_FIELDS = (
    ("sku", is_text, TEXT),
    ("name", is_text, TEXT),
    ("price", is_amount, AMOUNT),
    ("qty", is_qty, f"a whole number from 1 to {MAX_QTY}"),
)


def read_line(problems, number, raw):
    where = f"line {number}"
    if not isinstance(raw, dict):
        problems.add(f"{where}: must be an object")
        return None
    bad = False
    for field, valid, need in LINE_FIELDS:
        if not valid(raw.get(field)):
            problems.add(f"{where}: {field} must be {need}")
            bad = True
    category = raw.get("category")
    if category is not None and not is_text(category):
        problems.add(f"{where}: category must be {TEXT}")
        bad = True
    if bad:
        return None
    return Line(raw["sku"], raw["name"], to_cents(raw["price"]), raw["qty"], category)


def read_lines(problems, raw):
    if not isinstance(raw, list) or not raw:
        problems.add("lines must be a non-empty list")
        return ()
    lines = [line for n, item in enumerate(raw, start=1) if (line := read_line(problems, n, item))]
    if REJECT_DUPLICATES:
        seen, reported = set(), []
        for line in lines:
            if line.sku in seen and line.sku not in reported:
                reported.append(line.sku)
                problems.add(f"duplicate sku {line.sku}")
            seen.add(line.sku)
    return tuple(lines)


def read_coupon(problems, number, raw):
    where = f"coupon {number}"
    if not isinstance(raw, dict) or not is_text(raw.get("code")):
        problems.add(f"{where}: code must be {TEXT}")
        return None
    percent, amount = raw.get("percent"), raw.get("amount")
    if (percent is None) == (amount is None):
        problems.add(f"{where}: needs exactly one of percent and amount")
        return None
    if percent is not None:
        if not (is_amount(percent) and 0 < exact(percent) <= 100):
            problems.add(f"{where}: percent must be above 0 and at most 100, with at most 2 decimals")
            return None
        return Coupon(raw["code"], exact(percent), 0)
    if not (is_amount(amount) and exact(amount) > 0):
        problems.add(f"{where}: amount must be above 0, with at most 2 decimals")
        return None
    return Coupon(raw["code"], None, to_cents(amount))


def read_shipping(problems, where, raw):
    if not isinstance(raw, dict):
        problems.add(f"{where}: must be an object")
        return None
    checks = (
        ("method", is_text(raw.get("method")), TEXT),
        ("cost", is_amount(raw.get("cost")), AMOUNT),
        ("free_from", raw.get("free_from") is None or is_amount(raw.get("free_from")), AMOUNT),
    )
    bad = False
    for field, ok, need in checks:
        if not ok:
            problems.add(f"{where}: {field} must be {need}")
            bad = True
    if bad:
        return None
    free = raw.get("free_from")
    return Shipping(raw["method"], to_cents(raw["cost"]), None if free is None else to_cents(free))


def read_coupons(problems, raw):
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.add("coupons must be a list")
        return ()
    return tuple(c for n, item in enumerate(raw, start=1) if (c := read_coupon(problems, n, item)))


def read_options(problems, raw):
    if not isinstance(raw, list) or not raw:
        problems.add("options must be a non-empty list")
        return ()
    return tuple(s for n, item in enumerate(raw, start=1) if (s := read_shipping(problems, f"option {n}", item)))


def read_request(data):
    """The order of a request (raises InvalidRequest)."""
    if not isinstance(data, dict):
        raise InvalidRequest(["request must be a JSON object"])
    op = data.get("op")
    if op not in OPS:
        raise InvalidRequest([f"unknown op {json.dumps(op)}"])
    problems = Problems()
    ref = data.get("order")
    if not is_text(ref):
        problems.add(f"order must be {TEXT}")
    lines = read_lines(problems, data.get("lines"))
    coupons = read_coupons(problems, data.get("coupons"))
    codes = data.get("codes")
    if codes is not None and not (isinstance(codes, list) and all(isinstance(c, str) for c in codes)):
        problems.add("codes must be a list of strings")
    shipping = data.get("shipping")
    if shipping is not None:
        shipping = read_shipping(problems, "shipping", shipping)
    options = read_options(problems, data.get("options")) if op == "shipping" else ()
    rate = data.get("tax_rate")
    if rate is not None and not (has_decimals(rate, 3) and 0 <= exact(rate) <= MAX_TAX):
        problems.add(f"tax_rate must be a percentage from 0 to {MAX_TAX} with at most 3 decimals")
    if problems.found:
        raise InvalidRequest(problems.found)
    rate = exact(rate) if rate is not None else 0
    return Order(op, ref, lines, coupons, tuple(codes or ()), shipping, options, rate)
''',
    "cartprice/pricing.py": '''"""Prices: the lines (combined and bulk-priced by the house rules), the
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
''',
    "cartprice/app.py": '''"""One request in, one priced answer out."""

from .money import minus, money
from .pricing import price_order, totals
from .request import InvalidRequest, read_request
from .rules import order_lines


def label(line):
    return f"{line.name} [{line.category}]" if line.category else line.name


def receipt(order, priced):
    rows = [f"{p.qty} x {label(p)} @ {money(p.price)} = {money(p.net)}" for p in order_lines(priced.lines)]
    units = sum(p.qty for p in priced.lines)
    return [*rows, f"items: {units}", f"subtotal: {money(sum(p.net for p in priced.lines))}"]


def shipped(result):
    return "free" if result.free else money(result.shipping)


def total(order, priced):
    result = totals(order, priced, order.shipping)
    return [
        f"subtotal: {money(result.subtotal)}",
        f"discount: {minus(result.discount)}",
        f"shipping: {shipped(result)}",
        f"tax: {money(result.tax)}",
        f"total: {money(result.total)}",
    ]


def coupons(order, priced):
    rows, amounts = [], iter(priced.amounts)
    for text, coupon, status in priced.entries:
        if coupon is None:
            rows.append(f"{text}: {status}")
            continue
        amount = next(amounts)
        rows.append(f"{text}: not combined" if amount is None else f"{text}: {minus(amount)}")
    if not rows:
        rows.append("no codes entered")
    return [*rows, f"discount: {minus(sum(a for a in priced.amounts if a))}"]


def shipping(order, priced):
    rows, best = [], None
    for option in order.options:
        result = totals(order, priced, option)
        rows.append(f"{option.method}: shipping {shipped(result)}, total {money(result.total)}")
        if best is None or result.total < best[1]:
            best = (option.method, result.total)
    return [*rows, f"cheapest: {best[0]}"]


def check(order, priced):
    units = sum(p.qty for p in priced.lines)
    subtotal = money(sum(p.net for p in priced.lines))
    return [f"ok: {len(priced.lines)} lines, {units} units, subtotal {subtotal}"]


OPS = {"receipt": receipt, "total": total, "coupons": coupons, "shipping": shipping, "check": check}


def handle(data):
    """The whole output of one request: {op, order, lines, coupons?, codes?, shipping?, options?, tax_rate?}."""
    try:
        order = read_request(data)
    except InvalidRequest as exc:
        return "".join(f"error: {problem}\\n" for problem in exc.problems)
    lines = OPS[order.op](order, price_order(order))
    return "\\n".join([f"== order {order.ref} ==", *lines]) + "\\n"
''',
}

_SEQUENTIAL = """def stack(coupons, subtotal, value):
    amounts, left = {{}}, subtotal
    for index in sorted(range(len(coupons)), key=lambda i: coupons[i].percent is {first}):
        amounts[index] = min(value(coupons[index], left), left)
        left -= amounts[index]
    return [amounts[i] for i in range(len(coupons))]
"""

BLOCKS = {
    "line_order": {
        "cart": "def order_lines(lines):\n    return list(lines)\n",
        "total_desc": "def order_lines(lines):\n    return sorted(lines, key=lambda line: -line.net)\n",
        "name": "def order_lines(lines):\n    return sorted(lines, key=lambda line: line.name.lower())\n",
    },
    "duplicates": {
        "kept": "REJECT_DUPLICATES = False\n\n\ndef combine(lines):\n    return list(lines)\n",
        "merged": (
            "REJECT_DUPLICATES = False\n\n\ndef combine(lines):\n    merged = {}\n    for line in lines:\n"
            "        first = merged.get(line.sku)\n"
            "        merged[line.sku] = line if first is None else replace(first, qty=first.qty + line.qty)\n"
            "    return list(merged.values())\n"
        ),
        "rejected": "REJECT_DUPLICATES = True\n\n\ndef combine(lines):\n    return list(lines)\n",
    },
    "bulk": {"none": "BULK_MIN_QTY = None\n", "ten_units": "BULK_MIN_QTY = 10\n"},
    "stacking": {
        "additive": (
            "def stack(coupons, subtotal, value):\n    amounts, left = [], subtotal\n    for coupon in coupons:\n"
            "        amounts.append(min(value(coupon, subtotal), left))\n        left -= amounts[-1]\n"
            "    return amounts\n"
        ),
        "best": (
            "def stack(coupons, subtotal, value):\n    values = [value(coupon, subtotal) for coupon in coupons]\n"
            "    best = values.index(max(values)) if values else -1\n"
            "    return [v if i == best else None for i, v in enumerate(values)]\n"
        ),
        "percent_first": _SEQUENTIAL.format(first="None"),
        "fixed_first": _SEQUENTIAL.format(first="not None"),
    },
    "code_match": {
        "exact": "def code_key(text):\n    return text\n",
        "normalized": "def code_key(text):\n    return text.strip().upper()\n",
    },
    "tax_base": {
        "discounted": "def tax_base(subtotal, discount, shipping):\n    return subtotal - discount\n",
        "full": "def tax_base(subtotal, discount, shipping):\n    return subtotal\n",
        "with_shipping": "def tax_base(subtotal, discount, shipping):\n    return subtotal - discount + shipping\n",
    },
    "rounding": {
        "half_up": "def round_cents(x):\n    return (2 * x.numerator + x.denominator) // (2 * x.denominator)\n",
        "half_even": "def round_cents(x):\n    return round(x)\n",
        "down": "def round_cents(x):\n    return x.numerator // x.denominator\n",
    },
    "free_basis": {
        "before_discount": "def free_basis(subtotal, discount):\n    return subtotal\n",
        "after_discount": "def free_basis(subtotal, discount):\n    return subtotal - discount\n",
    },
    "free_edge": {
        "inclusive": "def ships_free(basis, threshold):\n    return basis >= threshold\n",
        "exclusive": "def ships_free(basis, threshold):\n    return basis > threshold\n",
    },
    "thousands": {
        "none": "def group_thousands(whole):\n    return str(whole)\n",
        "comma": 'def group_thousands(whole):\n    return f"{whole:,}"\n',
    },
    "errors": {"first": "REPORT_ALL = False\n", "all": "REPORT_ALL = True\n"},
}

#: What a decision is when the task does not have it (its features are absent): any value works; the first.
FALLBACK_BLOCKS = {name: next(iter(values.values())) for name, values in BLOCKS.items()}
_HEADER = (
    '"""The house pricing rules of this shop (one block per product decision)."""\n\nfrom dataclasses import replace\n'
)


def rules_module(values: dict[str, str]) -> str:
    """``cartprice/rules.py``: the chosen block of every decision (absent decisions take a fixed one)."""
    parts = [_HEADER]
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS[name])
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``."""
    return {**CORE, "cartprice/rules.py": rules_module(values)}
