"""One request in, one priced answer out."""

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
        return "".join(f"error: {problem}\n" for problem in exc.problems)
    lines = OPS[order.op](order, price_order(order))
    return "\n".join([f"== order {order.ref} ==", *lines]) + "\n"
