"""Execution adapter: one JSON request on stdin -> validation report on stdout.

Only request-shape checks and error-line rendering live here; all CSV and schema logic is in
the csv_schema package.
"""
import json
import sys

from csv_schema import (CsvSyntaxError, MissingHeader, SchemaError, parse_schema,
                        render_report, validate)


class RequestError(Exception):
    pass


def _max_errors(request):
    if "max_errors" not in request:
        return None
    value = request["max_errors"]
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise RequestError("invalid max_errors")
    return value


def handle(request):
    try:
        if not isinstance(request, dict):
            raise RequestError("input must be an object")
        if not isinstance(request.get("csv"), str):
            raise RequestError("missing csv")
        try:
            schema = parse_schema(request.get("schema"))
        except SchemaError as exc:
            raise RequestError("invalid schema") from exc
        limit = _max_errors(request)
        report = validate(request["csv"], schema)
        return render_report(report, limit)
    except RequestError as exc:
        return f"error: {exc}\n"
    except CsvSyntaxError as exc:
        what = "unterminated quote" if exc.kind == "unterminated" else "malformed quoting"
        return f"error: {what} in row {exc.row}\n"
    except MissingHeader:
        return "error: missing header\n"


def main():
    raw = sys.stdin.buffer.read().decode("utf-8")
    try:
        request = json.loads(raw)
    except ValueError:
        sys.stdout.write("error: input must be an object\n")
        return
    sys.stdout.buffer.write(handle(request).encode("utf-8"))


if __name__ == "__main__":
    main()
