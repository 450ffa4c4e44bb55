"""One request in, one report out."""

from .errors import Fatal
from .reader import read_records
from .report import render
from .rules import QUOTES_FATAL, row_number
from .schema import parse_schema
from .validator import check_file


def _max_errors(data):
    if "max_errors" not in data:
        return None
    value = data["max_errors"]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Fatal("invalid max_errors")
    return value


def check(data):
    """The report's lines after the title, or Fatal."""
    text = data.get("csv")
    if not isinstance(text, str):
        raise Fatal("missing csv")
    columns = parse_schema(data.get("schema"))
    limit = _max_errors(data)
    records = read_records(text)
    if not records:
        raise Fatal("missing header")
    header, rows = records[0], records[1:]
    if header.broken:
        raise Fatal(f"{header.broken} in the header")
    broken = next((r for r in rows if r.broken), None)
    if broken and QUOTES_FATAL:
        raise Fatal(f"{broken.broken} in row {row_number(broken)}")
    return render(check_file(header, rows, columns), len(rows), limit)


def handle(data):
    """The whole output of one request (a JSON object with file, csv, schema and optional max_errors)."""
    if not isinstance(data, dict):
        return "error: input must be an object\n"
    name = data.get("file")
    title = name.strip() if isinstance(name, str) and name.strip() else "data.csv"
    try:
        lines = check(data)
    except Fatal as exc:
        lines = [f"error: {exc}"]
    return "\n".join([f"== {title} ==", *lines]) + "\n"
