"""One request in, one report out."""

from .ranges import RangeError, admits, parse_range
from .rules import DUPLICATES, INVALID, NO_MATCH, PICK_LOWEST
from .version import compare, in_order, parse_version


class RequestError(Exception):
    """A request the tool refuses; the message is the text of the error line."""


def text_field(data, name):
    value = data.get(name)
    if not isinstance(value, str):
        raise RequestError(f"missing field: {name}")
    return value


def texts_field(data, name):
    value = data.get(name)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise RequestError(f"missing field: {name}")
    return value


def checked_range(text):
    try:
        return parse_range(text)
    except RangeError:
        raise RequestError(f"invalid range: {text}") from None


class Versions:
    """The valid versions of a list, and what the house does with its invalid entries."""

    def __init__(self, texts):
        parsed = [(text, parse_version(text)) for text in texts]
        self.valid = distinct([v for _, v in parsed if v is not None])
        self.invalid = [text for text, v in parsed if v is None]
        if self.invalid and INVALID == "fail":
            raise RequestError(f"invalid version: {self.invalid[0]}")

    def footer(self):
        return ["invalid: " + ", ".join(self.invalid)] if self.invalid and INVALID == "report" else []


def same(a, b):
    return a.text == b.text if DUPLICATES == "text" else compare(a, b) == 0


def distinct(versions):
    """The versions without repeats, under the house rule (the first one written is kept)."""
    if DUPLICATES == "keep":
        return versions
    kept = []
    for version in versions:
        if not any(same(version, other) for other in kept):
            kept.append(version)
    return kept


def pick(candidates):
    best = None
    for version in candidates:
        if best is None or compare(version, best) == (-1 if PICK_LOWEST else 1):
            best = version
    return best


def sort_report(data):
    versions = Versions(texts_field(data, "versions"))
    return [v.show() for v in in_order(versions.valid)] + versions.footer()


def match_report(data):
    alternatives = checked_range(text_field(data, "range"))
    versions = Versions(texts_field(data, "versions"))
    hits = [v for v in versions.valid if admits(alternatives, v)]
    summary = f"matched: {len(hits)} of {len(versions.valid)}"
    return [v.show() for v in in_order(hits)] + [summary] + versions.footer()


def resolve_report(data):
    ranges = [(text, checked_range(text)) for text in texts_field(data, "ranges")]
    versions = Versions(texts_field(data, "versions"))
    lines = []
    for text, alternatives in ranges:
        best = pick(v for v in versions.valid if admits(alternatives, v))
        lines.append(f"{text} -> {best.show() if best is not None else NO_MATCH}")
    return lines + versions.footer()


def expand_report(data):
    return [a.expanded() for a in checked_range(text_field(data, "range"))]


def _is_pair(value):
    return isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value)


def compare_report(data):
    pairs = data.get("pairs")
    if not isinstance(pairs, list) or not all(_is_pair(p) for p in pairs):
        raise RequestError("missing field: pairs")
    versions = Versions([text for pair in pairs for text in pair])
    lines = []
    for a, b in ([parse_version(t) for t in pair] for pair in pairs):
        if a is not None and b is not None:
            lines.append(f"{a.show()} {'<=>'[compare(a, b) + 1]} {b.show()}")
    return lines + versions.footer()


OPS = {
    "sort": sort_report,
    "match": match_report,
    "resolve": resolve_report,
    "expand": expand_report,
    "compare": compare_report,
}
WITH_RANGE = ("match", "expand")


def handle(data):
    """The whole output of one request (a JSON object with op, package and the op's fields)."""
    if not isinstance(data, dict):
        return "error: malformed request\n"
    op = data.get("op")
    if not isinstance(op, str):
        return "error: missing field: op\n"
    if op not in OPS:
        return f"error: unsupported op: {op}\n"
    try:
        package = text_field(data, "package")
        lines = OPS[op](data)
    except RequestError as exc:
        return f"error: {exc}\n"
    title = f"{package} {data['range']}" if op in WITH_RANGE else package
    return "\n".join([f"== {title} ==", *lines]) + "\n"
