"""The request and its checks, in a fixed order (the house says how many
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
