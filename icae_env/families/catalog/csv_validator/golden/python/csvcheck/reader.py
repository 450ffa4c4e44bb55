"""Records of CSV text (RFC 4180 quoting), with their index and the line each starts on."""

from dataclasses import dataclass, field


@dataclass
class Record:
    index: int
    line: int
    fields: list = field(default_factory=list)
    broken: str = ""


class _Broken(Exception):
    def __init__(self, problem, at):
        super().__init__(problem)
        self.problem, self.at = problem, at


def _quoted(text, i):
    i, buf = i + 1, []
    while True:
        if i >= len(text):
            raise _Broken("unterminated quote", len(text))
        if text.startswith('""', i):
            buf.append('"')
            i += 2
        elif text[i] == '"':
            i += 1
            break
        else:
            buf.append(text[i])
            i += 1
    if i < len(text) and text[i] not in ",\n":
        raise _Broken("malformed quoting", i)
    return "".join(buf), i


def _plain(text, i):
    start = i
    while i < len(text) and text[i] not in ",\n":
        if text[i] == '"':
            raise _Broken("malformed quoting", i)
        i += 1
    return text[start:i], i


def _fields(text, i):
    fields = []
    while True:
        value, i = (_quoted if text.startswith('"', i) else _plain)(text, i)
        fields.append(value)
        if not text.startswith(",", i):
            return fields, i + 1
        i += 1


def read_records(text):
    """Every record; a record with broken quoting is kept with its problem and runs to the end of that line."""
    text = text.replace("\r\n", "\n")
    records, i, line = [], 0, 1
    while i < len(text):
        if text[i] == "\n":
            i, line = i + 1, line + 1
            continue
        start, record = i, Record(len(records), line)
        try:
            record.fields, i = _fields(text, i)
        except _Broken as exc:
            record.broken = exc.problem
            end = text.find("\n", exc.at)
            i = len(text) if end < 0 else end + 1
        records.append(record)
        line += text.count("\n", start, i)
    return records
