"""``cart-pricing``: an order-pricing tool for a small online shop (receipts, totals, coupons, shipping, checks).

Texts, decisions and skins are in ``family.yaml``; the golden in ``golden/`` and ``blocks/``. Samplers draw
carts from the skin's catalogue and lean on the house rules the task does not leave at their default (its
``focus``): more bulk lines, repeated skus, big orders, typed codes in other letter cases, and free-shipping
thresholds placed exactly on the amounts the rules compare. Public requests stay plain (a few distinct lines under a
thousand, one code typed as printed, thresholds far from the order) so that no house rule shows in them. A malformed
request of a feature other than the check breaks exactly one field, so that it never depends on the error rule.
"""

from __future__ import annotations

import functools
import random
import re
from typing import Any

from icae_env.families.model import Model, load_model
from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["CartPricing"]

OPS = {"feature1_receipt": "receipt", "feature2_total": "total", "feature3_coupons": "coupons",
       "feature4_shipping": "shipping", "feature5_check": "check"}  # fmt: skip
TAX_RATES = (0, 5, 6.25, 7, 7.5, 8.25, 8.875, 10, 10, 20)
COSTS = (3.75, 4.95, 5.5, 6.95, 9.95, 12.5, 14.25)
THRESHOLDS = (35, 50, 75, 100, 150, 250)
#: One invalid value per line field (each breaks exactly that field).
_BAD_LINE = {
    "sku": ("", "   ", 1041, None),
    "name": ("", 7, None),
    "price": (-1, "12.50", 12.345, True, None),
    "qty": (0, 1000, 2.5, "3", -2, None),
    "category": ("", 12, " "),
}
#: One invalid value per top-level field, in the golden's checking order.
_BAD_TOP = {
    "order": ("", 42, None, "  "),
    "lines": ([], "3 x hammer", {}),
    "coupons": ("READ10", {"code": "X"}),
    "codes": ("READ10", [5], [None]),
    "shipping": ("express", [4.95]),
    "tax_rate": (35, 8.1234, "8%", -1, True),
}
_CODE = re.compile(r"(\d+)$")


@functools.lru_cache(maxsize=64)
def _model(family: Family, values: tuple[tuple[str, str], ...]) -> Model:
    """The task's own golden (the samplers ask it what an order's subtotal and discount are)."""
    return load_model(family.sources(dict(values)))


def _cents(value: float) -> int:
    return round(value * 100)


def _amount(cents: int) -> float | int:
    return cents // 100 if cents % 100 == 0 else round(cents / 100, 2)


def _coupon(code: str, percent: bool) -> dict[str, Any]:
    found = _CODE.search(code)
    value = int(found.group(1)) if found else 10
    return {"code": code, "percent": value} if percent else {"code": code, "amount": value}


def _respell(rng: random.Random, code: str) -> str:
    """A code the way a customer might type it (another letter case, stray spaces)."""
    return rng.choice(
        (code.lower(), code.title(), f" {code}", f"{code} ", f"{code.lower()} ", code[:2] + code[2:].lower())
    )


class CartPricing(Family):
    """An order-pricing tool; texts and decisions in ``family.yaml``."""

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        op = OPS[feature]
        data: dict[str, Any] = {"op": op, "order": f"{plan.skin.pools['prefix'][0]}-{rng.randint(10000, 99999)}"}
        if kind == "public":
            return self._public(plan, data, rng)
        focus = frozenset(n for n, v in plan.values.items() if v != self.decision(n).naive)
        self._cart(plan, data, focus, rng)
        if kind == "boundary":
            self._edge(plan, data, rng)
        self._extras(plan, data, focus, rng)
        if op == "check":
            return self._check(data, kind, rng)
        if kind == "malformed":
            data["lines"] = list({line["sku"]: line for line in data["lines"]}.values())  # one problem only
            return self._break_one(data, rng) if rng.random() < 0.6 else self._messy(data, rng)
        return data

    # --- carts ------------------------------------------------------------------------------------------------

    @staticmethod
    def _line(rng: random.Random, product: list[Any], qty: int, category: bool) -> dict[str, Any]:
        """A cart line of ``product`` (its price moved a little, so that carts differ across tasks)."""
        sku, name, price, label = product
        cents = max(0, _cents(price) + rng.choice((0, 0, 0, 10, -10, 20, 50, -40)))
        line: dict[str, Any] = {"sku": sku, "name": name, "price": _amount(cents), "qty": qty}
        if category:
            line["category"] = label
        return line

    def _cart(self, plan: Plan, data: dict[str, Any], focus: frozenset[str], rng: random.Random) -> None:
        pools = plan.skin.pools
        products = rng.sample(list(pools["products"]), rng.randint(2, 5))
        lines = [self._line(rng, p, rng.choice((1, 1, 2, 2, 3, 4, 5, 6)), rng.random() < 0.4) for p in products]
        if rng.random() < (0.55 if "bulk" in focus else 0.25):
            for line in rng.sample(lines, rng.choice((1, 1, 2))):
                line["qty"] = rng.choice((10, 10, 11, 12, 15, 20, 9, 13))
        if rng.random() < (0.5 if "thousands" in focus else 0.25):
            big = max(lines, key=lambda line: line["price"])
            big["qty"] = min(999, max(big["qty"], -(-1000 // max(1, int(big["price"]))) + rng.randint(0, 8)))
        if rng.random() < (0.55 if "duplicates" in focus else 0.2):
            source = rng.randrange(len(lines))
            twin = {**lines[source], "qty": rng.choice((1, 2, 3, 5, 8))}
            lines.insert(rng.randint(source + 1, len(lines)), twin)
        data["lines"] = lines
        data["tax_rate"] = rng.choice(TAX_RATES)
        table = [_coupon(c, True) for c in rng.sample(list(pools["percent_codes"]), rng.randint(1, 3))]
        table += [_coupon(c, False) for c in rng.sample(list(pools["amount_codes"]), rng.randint(1, 2))]
        rng.shuffle(table)
        data["coupons"] = table
        data["codes"] = self._codes(plan, table, focus, rng)

    @staticmethod
    def _codes(plan: Plan, table: list[dict[str, Any]], focus: frozenset[str], rng: random.Random) -> list[str]:
        many = "stacking" in focus or "free_basis" in focus
        count = rng.choice((1, 2, 2, 3, 3) if many else (0, 1, 1, 2, 2, 3))
        codes = [c["code"] for c in rng.sample(table, min(count, len(table)))]
        respell = 0.45 if "code_match" in focus else 0.2
        codes = [_respell(rng, code) if rng.random() < respell else code for code in codes]
        if rng.random() < 0.15:
            codes.insert(rng.randint(0, len(codes)), rng.choice(plan.skin.pools["amount_codes"]) + "X")
        if codes and rng.random() < 0.1:
            codes.append(rng.choice(codes))
        return codes

    def _extras(self, plan: Plan, data: dict[str, Any], focus: frozenset[str], rng: random.Random) -> None:
        """The shipping option (total) or options (shipping), some with a threshold right on the order."""
        methods = list(plan.skin.pools["methods"])
        edges = self._edges(plan, data) if rng.random() < (0.6 if focus & {"free_basis", "free_edge"} else 0.3) else []
        if data["op"] == "total" or (data["op"] == "check" and rng.random() < 0.3):
            data["shipping"] = self._option(rng, rng.choice(methods), edges)
        if data["op"] == "shipping":
            data["options"] = [self._option(rng, m, edges) for m in rng.sample(methods, rng.randint(2, 4))]

    @staticmethod
    def _option(rng: random.Random, method: str, edges: list[int]) -> dict[str, Any]:
        cost = 0 if method == "pickup" else rng.choice(COSTS)
        option: dict[str, Any] = {"method": method, "cost": cost}
        roll = rng.random()
        if edges and roll < 0.6:
            option["free_from"] = _amount(rng.choice(edges))
        elif roll < 0.85:
            option["free_from"] = rng.choice(THRESHOLDS)
        return option

    def _edges(self, plan: Plan, data: dict[str, Any]) -> list[int]:
        """Thresholds on which the house rules for free shipping disagree (the order's own amounts)."""
        request = {**data, "op": "total"}
        request.pop("shipping", None)
        out = _model(self, tuple(sorted(plan.values.items())))(request)
        found = dict(line.split(": ", 1) for line in out.splitlines()[1:] if ": " in line)
        if "subtotal" not in found:
            return []
        subtotal = _cents(float(found["subtotal"].replace(",", "")))
        discount = _cents(float(found["discount"].replace(",", "").lstrip("-")))
        edges = [subtotal, subtotal - discount]
        if discount > 1:
            edges.append(subtotal - discount // 2)
        return [e for e in edges if e > 0]

    def _edge(self, plan: Plan, data: dict[str, Any], rng: random.Random) -> None:
        """Values on the edges of the pricing rules."""
        lines = data["lines"]
        for _ in range(rng.choice((1, 2))):
            choice = rng.randrange(9)
            line = rng.choice(lines)
            if choice == 0:
                line["qty"] = rng.choice((9, 10, 999))
            elif choice == 1:
                line["price"] = 0
            elif choice == 2:
                data["tax_rate"] = rng.choice((0, 30, 29.999, 0.001))
            elif choice == 3:
                data["coupons"].append({"code": "ALL100", "percent": 100})
                data["codes"].append("ALL100")
            elif choice == 4:
                data["coupons"].append({"code": "BIG500", "amount": 500})
                data["codes"].insert(0, "BIG500")
            elif choice == 5:
                data["lines"] = [line]
            elif choice == 6:
                line.update(price=rng.choice((100, 50, 25, 20)), qty=rng.choice((10, 20, 40, 50)))
            elif choice == 7:
                data["codes"] = rng.choice(([], ["  "], [c["code"] + " " for c in data["coupons"]]))
            else:
                line["category"] = None

    # --- public requests: plain carts that leave every house rule open -----------------------------------------

    def _public(self, plan: Plan, data: dict[str, Any], rng: random.Random) -> Any:
        pools = plan.skin.pools
        products = sorted(rng.sample(list(pools["products"]), rng.randint(2, 3)), key=lambda p: str(p[1]).lower())
        lines, last = [], 10**9
        for product in products:  # cart order = name order = largest total first
            line = self._line(rng, product, 1, rng.random() < 0.3)
            qty = min(rng.randint(1, 3), max(1, 30000 // max(1, _cents(line["price"]))))
            while qty > 1 and _cents(line["price"]) * qty >= last:
                qty -= 1
            if _cents(line["price"]) * qty >= last:
                cents = (last - rng.randint(5, 300)) // 10 * 10 + 5  # a shop price (x.x5) below the last total
                line["price"] = _amount(cents if 0 <= cents < last else 0)
            line["qty"], last = qty, _cents(line["price"]) * qty
            lines.append(line)
        subtotal = sum(_cents(line["price"]) * line["qty"] for line in lines)
        data.update(lines=lines, tax_rate=0)  # no tax and whole-cent discounts: rounding and the tax base stay open
        exact = [c for c in pools["percent_codes"] if subtotal * _coupon(c, True)["percent"] % 100 == 0]
        code = rng.choice(exact + list(pools["amount_codes"]))
        data["coupons"] = [_coupon(code, code in pools["percent_codes"])]
        data["codes"] = [code] if data["op"] == "coupons" else []
        far = lambda: _amount(subtotal + rng.choice((-1, 1) if subtotal > 5000 else (1,)) * rng.randint(1000, 5000))  # noqa: E731
        option = lambda m: {"method": m, "cost": 0 if m == "pickup" else rng.choice(COSTS), "free_from": far()}  # noqa: E731
        if data["op"] == "total":
            data["shipping"] = option(rng.choice(pools["methods"]))
        elif data["op"] == "shipping":
            data["options"] = [option(m) for m in rng.sample(list(pools["methods"]), 2)]
        elif data["op"] == "check" and rng.random() < 0.4:
            return self._break_one(data, rng)
        return data

    # --- the check feature: valid carts and carts with one or more problems ------------------------------------

    def _check(self, data: dict[str, Any], kind: SampleKind, rng: random.Random) -> Any:
        if kind == "malformed" and rng.random() < 0.25:
            return rng.choice(([data["order"], data["lines"]], f"check {data['order']}", {**data, "op": "chek"}))
        if kind == "typical" and rng.random() < 0.35:
            return data
        for _ in range(rng.choice((1, 2, 2, 3) if kind != "boundary" else (1, 2))):
            data = self._break_one(data, rng)
        return data

    @staticmethod
    def _break_one(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        data = {**data, "lines": [dict(line) for line in data["lines"]] if isinstance(data["lines"], list) else []}
        if not data["lines"] or rng.random() < 0.35:
            field = rng.choice([f for f in _BAD_TOP if f in data or f in ("order", "lines")])
            data[field] = rng.choice(_BAD_TOP[field])
            return data
        line = rng.choice(data["lines"])
        field = rng.choice(tuple(_BAD_LINE))
        line[field] = rng.choice(_BAD_LINE[field])
        if line[field] is None:
            del line[field]
            if field == "category":
                line[field] = ""
        return data

    @staticmethod
    def _messy(data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        """Valid but untidy: explicit nulls for optional fields, stray fields, codes typed loosely."""
        for field in rng.sample(("category", "coupons", "codes", "tax_rate"), 2):
            if field == "category":
                data["lines"][0].setdefault("category", None)
            elif not data.get(field):
                data[field] = None
        if data.get("codes"):
            data["codes"] = [_respell(rng, code) if rng.random() < 0.5 else code for code in data["codes"]]
        return {**data, "channel": rng.choice(("web", "app", "phone")), "session": f"s-{rng.randrange(16**6):06x}"}
