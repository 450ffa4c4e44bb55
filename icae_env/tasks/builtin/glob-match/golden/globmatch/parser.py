"""Pattern text -> syntax tree, read left to right in one pass.

Nodes (all tuples, first element is the kind):
  ("lit", char)             one literal character (escapes already removed)
  ("any",)                  '?'
  ("star",)                 one '*'
  ("class", negated, items) items: list of (lo, hi) characters, single chars have lo == hi
  ("sep",)                  '/' (also an escaped '/')
  ("brace", alternatives)   alternatives: list of node lists
"""
from .errors import GlobSyntaxError


class _Reader:
    def __init__(self, text):
        self.text = text
        self.pos = 0

    def at_end(self):
        return self.pos >= len(self.text)

    def peek(self, offset=0):
        i = self.pos + offset
        return self.text[i] if i < len(self.text) else None


def parse(pattern):
    """Return the node list of ``pattern``; raise GlobSyntaxError on the first problem found."""
    reader = _Reader(pattern)
    nodes, _ = _sequence(reader, open_brace=None)
    return nodes


def _escaped(reader):
    """Consume a backslash escape and return the escaped character."""
    start = reader.pos
    if reader.pos + 1 >= len(reader.text):
        raise GlobSyntaxError("trailing backslash", start)
    reader.pos += 2
    return reader.text[start + 1]


def _sequence(reader, open_brace):
    """Read nodes until the end, or (inside a brace) until ',' or '}'. Returns (nodes, terminator)."""
    nodes = []
    while not reader.at_end():
        ch = reader.peek()
        if ch == "\\":
            esc = _escaped(reader)
            nodes.append(("sep",) if esc == "/" else ("lit", esc))
        elif ch == "*":
            reader.pos += 1
            nodes.append(("star",))
        elif ch == "?":
            reader.pos += 1
            nodes.append(("any",))
        elif ch == "/":
            reader.pos += 1
            nodes.append(("sep",))
        elif ch == "[":
            nodes.append(_class(reader))
        elif ch == "{":
            nodes.append(_brace(reader))
        elif ch == "}":
            if open_brace is None:
                raise GlobSyntaxError("unmatched '}'", reader.pos)
            reader.pos += 1
            return nodes, "}"
        elif ch == "," and open_brace is not None:
            reader.pos += 1
            return nodes, ","
        else:
            reader.pos += 1
            nodes.append(("lit", ch))
    if open_brace is not None:
        raise GlobSyntaxError("unclosed brace", open_brace)
    return nodes, None


def _brace(reader):
    start = reader.pos
    reader.pos += 1
    alternatives = []
    while True:
        nodes, terminator = _sequence(reader, open_brace=start)
        alternatives.append(nodes)
        if terminator == "}":
            return ("brace", alternatives)


def _class_char(reader):
    """Read one class member character (possibly escaped); returns (char, start position)."""
    start = reader.pos
    if reader.peek() == "\\":
        return _escaped(reader), start
    reader.pos += 1
    return reader.text[start], start


def _class(reader):
    start = reader.pos
    reader.pos += 1
    negated = False
    if reader.peek() in ("!", "^"):
        negated = True
        reader.pos += 1
    items = []
    first = True
    while True:
        ch = reader.peek()
        if ch is None:
            raise GlobSyntaxError("unclosed character class", start)
        if ch == "]" and not first:
            reader.pos += 1
            return ("class", negated, items)
        first = False
        lo, lo_pos = _class_char(reader)
        if reader.peek() == "-" and reader.peek(1) not in (None, "]"):
            reader.pos += 1
            hi, _ = _class_char(reader)
            if hi < lo:
                raise GlobSyntaxError(f"invalid range '{lo}-{hi}'", lo_pos)
            items.append((lo, hi))
        else:
            items.append((lo, lo))
