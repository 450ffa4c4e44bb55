"""The ``cart-pricing`` family: the house pricing rules, real generation (the harness) and splits.

The expected outputs below were worked out by hand (cents added and percentages taken on paper), not copied from
the golden.
"""

from __future__ import annotations

import pytest
from family_blocks import check_spec
from family_properties import (
    assert_edge_inputs_differ,
    python_outputs,
    sampled_inputs,
)

from icae_env.families import Knobs, generate, get_family
from icae_env.families.harness import harness_problems
from icae_env.families.model import load_model
from icae_env.families.plan import plan_task

FAMILY = "cart-pricing"


def _run(request: object, **values: str) -> str:
    """The golden's output with every decision at its naive default except ``values``."""
    family = get_family(FAMILY)
    plan = plan_task(family, "train", 0, Knobs(features=len(family.features)))
    for decision in family.decisions:
        plan = plan.with_value(decision.name, values.get(decision.name, decision.naive))
    return load_model(family.golden(plan, "python"))(request)


def _out(*lines: str) -> str:
    return "\n".join(["== order T-1 ==", *lines]) + "\n"


def _line(sku: str, name: str, price: float, qty: int, **extra: object) -> dict[str, object]:
    return {"sku": sku, "name": name, "price": price, "qty": qty, **extra}


def _req(op: str, lines: list[dict[str, object]], **fields: object) -> dict[str, object]:
    return {"op": op, "order": "T-1", "lines": lines, **fields}


CART = [_line("A1", "Dune", 12.45, 3), _line("B2", "atlas", 40, 1), _line("C3", "Emma", 16, 3)]
TWINS = [_line("A1", "Dune", 12.45, 3), _line("B2", "atlas", 40, 1), _line("A1", "Dune", 12.45, 2)]
BULK = [_line("A1", "Dune", 12.45, 10), _line("C3", "Emma", 4.10, 9)]
HUNDRED = [_line("H1", "Lamp", 25, 4)]
COUPONS = [{"code": "P10", "percent": 10}, {"code": "F5", "amount": 5}, {"code": "P20", "percent": 20}]
FIFTY = [_line("H1", "Lamp", 25, 2)]
EDGE = {"coupons": [{"code": "F5", "amount": 5}], "codes": ["F5"], "tax_rate": 0}
OPTIONS = [{"method": "standard", "cost": 5, "free_from": 50}, {"method": "express", "cost": 12},
           {"method": "pickup", "cost": 0}]  # fmt: skip
BROKEN = [_line("A", "x", -1, 2), _line("B", "y", 1, 0)]


def test_registered():
    family = get_family(FAMILY)
    assert family.languages == ("python",)
    assert not family.held_out
    assert sum(f.core for f in family.features) == 3
    check_spec(family)


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        # receipt order: cart (Dune 37.35, atlas 40.00, Emma 48.00), largest total first, or by name ignoring case
        ({}, _req("receipt", CART), _out("3 x Dune @ 12.45 = 37.35", "1 x atlas @ 40.00 = 40.00",
                                         "3 x Emma @ 16.00 = 48.00", "items: 7", "subtotal: 125.35")),
        ({"line_order": "total_desc"}, _req("receipt", CART),
         _out("3 x Emma @ 16.00 = 48.00", "1 x atlas @ 40.00 = 40.00", "3 x Dune @ 12.45 = 37.35", "items: 7",
              "subtotal: 125.35")),
        ({"line_order": "name"}, _req("receipt", CART),
         _out("1 x atlas @ 40.00 = 40.00", "3 x Dune @ 12.45 = 37.35", "3 x Emma @ 16.00 = 48.00", "items: 7",
              "subtotal: 125.35")),
        ({}, _req("receipt", [_line("A1", "Dune", 9.99, 2, category="fiction")]),
         _out("2 x Dune [fiction] @ 9.99 = 19.98", "items: 2", "subtotal: 19.98")),
        # the same sku twice: 3 x 12.45 = 37.35 and 2 x 12.45 = 24.90, or 5 x 12.45 = 62.25
        ({}, _req("receipt", TWINS), _out("3 x Dune @ 12.45 = 37.35", "1 x atlas @ 40.00 = 40.00",
                                          "2 x Dune @ 12.45 = 24.90", "items: 6", "subtotal: 102.25")),
        ({"duplicates": "merged"}, _req("receipt", TWINS),
         _out("5 x Dune @ 12.45 = 62.25", "1 x atlas @ 40.00 = 40.00", "items: 6", "subtotal: 102.25")),
        ({"duplicates": "rejected"}, _req("receipt", TWINS), "error: duplicate sku A1\n"),
        ({"duplicates": "merged"}, _req("check", TWINS), _out("ok: 2 lines, 6 units, subtotal 102.25")),
        # bulk: 10 x 12.45 = 124.50 less 12.45; 9 units pay full price (36.90)
        ({}, _req("receipt", BULK), _out("10 x Dune @ 12.45 = 124.50", "9 x Emma @ 4.10 = 36.90", "items: 19",
                                         "subtotal: 161.40")),
        ({"bulk": "ten_units"}, _req("receipt", BULK),
         _out("10 x Dune @ 12.45 = 112.05", "9 x Emma @ 4.10 = 36.90", "items: 19", "subtotal: 148.95")),
        # 11 x 4.15 = 45.65, 10% = 4.565: 4.57 half up, 4.56 half to even and cut down
        ({"bulk": "ten_units"}, _req("receipt", [_line("K", "Kit", 4.15, 11)]),
         _out("11 x Kit @ 4.15 = 41.08", "items: 11", "subtotal: 41.08")),
        ({"bulk": "ten_units", "rounding": "half_even"}, _req("receipt", [_line("K", "Kit", 4.15, 11)]),
         _out("11 x Kit @ 4.15 = 41.09", "items: 11", "subtotal: 41.09")),
        ({"bulk": "ten_units", "duplicates": "merged"},
         _req("check", [_line("K", "Kit", 2, 6), _line("K", "Kit", 2, 4)]),
         _out("ok: 1 lines, 10 units, subtotal 18.00")),
        # thousands
        ({}, _req("receipt", [_line("W", "Widget", 1234.5, 1)]),
         _out("1 x Widget @ 1234.50 = 1234.50", "items: 1", "subtotal: 1234.50")),
        ({"thousands": "comma"}, _req("receipt", [_line("W", "Widget", 1234.5, 10)]),
         _out("10 x Widget @ 1,234.50 = 12,345.00", "items: 10", "subtotal: 12,345.00")),
    ],
)  # fmt: skip
def test_receipts(values, request_, expected):
    assert _run(request_, **values) == expected


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        # subtotal 100.00; typed F5, P10, P20
        ({}, ("F5: -5.00", "P10: -10.00", "P20: -20.00", "discount: -35.00")),
        ({"stacking": "best"}, ("F5: not combined", "P10: not combined", "P20: -20.00", "discount: -20.00")),
        # P10 on 100 (10.00), P20 on 90 (18.00), then F5
        ({"stacking": "percent_first"}, ("F5: -5.00", "P10: -10.00", "P20: -18.00", "discount: -33.00")),
        # F5, then P10 on 95 (9.50), P20 on 85.50 (17.10)
        ({"stacking": "fixed_first"}, ("F5: -5.00", "P10: -9.50", "P20: -17.10", "discount: -31.60")),
    ],
)
def test_coupon_stacking(values, expected):
    request = _req("coupons", HUNDRED, coupons=COUPONS, codes=["F5", "P10", "P20"])
    assert _run(request, **values) == _out(*expected)


@pytest.mark.parametrize(
    ("values", "codes", "expected"),
    [
        ({}, [" p10", "P10"], (" p10: unknown code", "P10: -10.00", "discount: -10.00")),
        ({"code_match": "normalized"}, [" p10", "P10"], ("P10: -10.00", "P10: already entered", "discount: -10.00")),
        ({}, ["F5", "F5", "NOPE"], ("F5: -5.00", "F5: already entered", "NOPE: unknown code", "discount: -5.00")),
        ({}, [], ("no codes entered", "discount: 0.00")),
        # a fixed coupon never takes more than what is left (100 - 10 - 20 leaves 70; BIG takes it all)
        ({}, ["P10", "P20", "BIG", "F5"], ("P10: -10.00", "P20: -20.00", "BIG: -70.00", "F5: 0.00",
                                           "discount: -100.00")),
    ],
)  # fmt: skip
def test_coupon_codes(values, codes, expected):
    request = _req("coupons", HUNDRED, coupons=[*COUPONS, {"code": "BIG", "amount": 500}], codes=codes)
    assert _run(request, **values) == _out(*expected)


def _total(subtotal: str, discount: str, shipping: str, tax: str, total: str) -> str:
    return _out(f"subtotal: {subtotal}", f"discount: {discount}", f"shipping: {shipping}", f"tax: {tax}",
                f"total: {total}")  # fmt: skip


TAXED = _req("total", HUNDRED, coupons=[{"code": "F5", "amount": 5}], codes=["F5"], tax_rate=10,
             shipping={"method": "standard", "cost": 10})  # fmt: skip


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        # tax 10% of 95.00, of 100.00, or of 95.00 + 10.00 shipping
        ({}, TAXED, _total("100.00", "-5.00", "10.00", "9.50", "114.50")),
        ({"tax_base": "full"}, TAXED, _total("100.00", "-5.00", "10.00", "10.00", "115.00")),
        ({"tax_base": "with_shipping"}, TAXED, _total("100.00", "-5.00", "10.00", "10.50", "115.50")),
        # 10% of 12.45 = 1.245 and of 12.47 = 1.247
        ({}, _req("total", [_line("A", "a", 12.45, 1)], tax_rate=10), _total("12.45", "0.00", "0.00", "1.25", "13.70")),
        ({"rounding": "half_even"}, _req("total", [_line("A", "a", 12.45, 1)], tax_rate=10),
         _total("12.45", "0.00", "0.00", "1.24", "13.69")),
        ({"rounding": "half_even"}, _req("total", [_line("A", "a", 12.47, 1)], tax_rate=10),
         _total("12.47", "0.00", "0.00", "1.25", "13.72")),
        ({"rounding": "down"}, _req("total", [_line("A", "a", 12.47, 1)], tax_rate=10),
         _total("12.47", "0.00", "0.00", "1.24", "13.71")),
        # free shipping from 50.00 on a 50.00 cart with 5.00 off
        ({}, _req("total", FIFTY, shipping={"method": "std", "cost": 4.95, "free_from": 50}, **EDGE),
         _total("50.00", "-5.00", "free", "0.00", "45.00")),
        ({"free_basis": "after_discount"}, _req("total", FIFTY, shipping={"method": "std", "cost": 4.95,
                                                                          "free_from": 50}, **EDGE),
         _total("50.00", "-5.00", "4.95", "0.00", "49.95")),
        ({"free_edge": "exclusive"}, _req("total", FIFTY, shipping={"method": "std", "cost": 4.95, "free_from": 50},
                                          **EDGE), _total("50.00", "-5.00", "4.95", "0.00", "49.95")),
        ({"free_basis": "after_discount"}, _req("total", FIFTY, shipping={"method": "std", "cost": 4.95,
                                                                          "free_from": 45}, **EDGE),
         _total("50.00", "-5.00", "free", "0.00", "45.00")),
        ({"free_basis": "after_discount", "free_edge": "exclusive"},
         _req("total", FIFTY, shipping={"method": "std", "cost": 4.95, "free_from": 45}, **EDGE),
         _total("50.00", "-5.00", "4.95", "0.00", "49.95")),
        ({"thousands": "comma", "code_match": "normalized"},
         _req("total", [_line("W", "w", 600, 2)], coupons=[{"code": "F5", "amount": 5}], codes=["f5"], tax_rate=10),
         _total("1,200.00", "-5.00", "0.00", "119.50", "1,314.50")),
    ],
)  # fmt: skip
def test_totals(values, request_, expected):
    assert _run(request_, **values) == expected


@pytest.mark.parametrize(
    ("values", "expected"),
    [
        # tax 10% of 50.00 = 5.00; express taxed on 62.00 when shipping is taxed
        ({}, ("standard: shipping free, total 55.00", "express: shipping 12.00, total 67.00",
              "pickup: shipping 0.00, total 55.00", "cheapest: standard")),
        ({"tax_base": "with_shipping", "free_edge": "exclusive"},
         ("standard: shipping 5.00, total 60.50", "express: shipping 12.00, total 68.20",
          "pickup: shipping 0.00, total 55.00", "cheapest: pickup")),
    ],
)  # fmt: skip
def test_shipping_options(values, expected):
    assert _run(_req("shipping", FIFTY, options=OPTIONS, tax_rate=10), **values) == _out(*expected)


@pytest.mark.parametrize(
    ("values", "request_", "expected"),
    [
        ({}, _req("check", CART), _out("ok: 3 lines, 7 units, subtotal 125.35")),
        ({}, _req("check", BROKEN, tax_rate=40),
         "error: line 1: price must be an amount >= 0 with at most 2 decimals\n"),
        ({"errors": "all"}, _req("check", BROKEN, tax_rate=40),
         "error: line 1: price must be an amount >= 0 with at most 2 decimals\n"
         "error: line 2: qty must be a whole number from 1 to 999\n"
         "error: tax_rate must be a percentage from 0 to 30 with at most 3 decimals\n"),
        ({"errors": "all", "duplicates": "rejected"}, _req("check", [*TWINS, _line("", "z", 1, 1)], codes="F5"),
         "error: line 4: sku must be a non-empty string\nerror: duplicate sku A1\n"
         "error: codes must be a list of strings\n"),
        ({}, _req("total", CART, tax_rate=8.1234),
         "error: tax_rate must be a percentage from 0 to 30 with at most 3 decimals\n"),
        ({}, _req("shipping", CART), "error: options must be a non-empty list\n"),
        ({}, _req("total", CART, shipping={"method": "std", "cost": "4.95"}),
         "error: shipping: cost must be an amount >= 0 with at most 2 decimals\n"),
        ({}, _req("coupons", CART, coupons=[{"code": "X", "percent": 10, "amount": 5}]),
         "error: coupon 1: needs exactly one of percent and amount\n"),
        ({}, _req("receipt", [_line("A", "a", 1.5, 1000)]),
         "error: line 1: qty must be a whole number from 1 to 999\n"),
        ({}, {"op": "totals", "order": "T-1"}, 'error: unknown op "totals"\n'),
        ({}, ["T-1"], "error: request must be a JSON object\n"),
        ({}, _req("check", []), "error: lines must be a non-empty list\n"),
    ],
)  # fmt: skip
def test_checks_and_errors(values, request_, expected):
    assert _run(request_, **values) == expected


def test_every_sampled_request_prints_its_order_or_errors():
    family = get_family(FAMILY)
    plan = plan_task(family, "train", 2, Knobs(features=len(family.features)))
    inputs = sampled_inputs(plan, 4, "samples")
    for data, answer in zip(inputs, python_outputs(plan, inputs), strict=True):
        header = isinstance(data, dict) and answer.startswith(f"== order {data.get('order')} ==\n")
        assert header or all(line.startswith("error: ") for line in answer.splitlines()), (data, answer)


def test_malformed_and_boundary_inputs_carry_drawn_content():
    """No malformed or boundary input of one task repeats in another."""
    family = get_family(FAMILY)
    knobs = Knobs(features=len(family.features))
    assert_edge_inputs_differ(plan_task(family, "train", 0, knobs), plan_task(family, "test", 0, knobs), 100)


@pytest.mark.slow
@pytest.mark.parametrize(("split", "index"), [("train", 1), ("test", 0)])
def test_real_harness(split, index):
    """Golden 100% on every tier, empty workspace 0%, through the real harness."""
    assert harness_problems(generate(FAMILY, split, index)) == []
