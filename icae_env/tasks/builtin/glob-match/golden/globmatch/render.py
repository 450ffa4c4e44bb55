"""Text rendering of the compiled form (the translate view)."""

_CLASS_ESCAPES = set("\\]-!^")


def _quote(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _class_char(ch):
    return "\\" + ch if ch in _CLASS_ESCAPES else ch


def render_token(token):
    if token.kind == "lit":
        return _quote(token.value)
    if token.kind == "any":
        return "ANY"
    if token.kind == "star":
        return "STAR"
    if token.kind == "globstar":
        return "GLOBSTAR"
    negated, items = token.value
    body = "".join(
        _class_char(lo) if lo == hi else f"{_class_char(lo)}-{_class_char(hi)}" for lo, hi in items
    )
    return ("[!" if negated else "[") + body + "]"


def render_segment(tokens):
    return " ".join(render_token(t) for t in tokens) if tokens else '""'


def render_translation(alternatives, ignore_case=False):
    """Return the translate lines (without newlines)."""
    mode = "case-insensitive" if ignore_case else "case-sensitive"
    lines = [f"alternatives: {len(alternatives)} ({mode})"]
    for number, alternative in enumerate(alternatives, 1):
        text = " / ".join(render_segment(s) for s in alternative.segments)
        if alternative.dir_only:
            text += " (dir only)"
        lines.append(f"{number}: {text}")
    return lines
