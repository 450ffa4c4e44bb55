"""stdin/stdout adapter: one JSON request in, unified diff (or one error line) out."""
import json
import sys

from unidiff import unified_diff


class RequestError(ValueError):
    pass


def _string_field(request, key, default=None, single_line=False):
    if key not in request:
        if default is None:
            raise RequestError(f"field '{key}' must be a string")
        return default
    value = request[key]
    if single_line:
        if not isinstance(value, str) or "\n" in value:
            raise RequestError(f"field '{key}' must be a single-line string")
    elif not isinstance(value, str):
        raise RequestError(f"field '{key}' must be a string")
    return value


def _validate(request):
    if not isinstance(request, dict):
        raise RequestError("input must be a JSON object")
    a = _string_field(request, "a")
    b = _string_field(request, "b")
    context = request.get("context", 3)
    if isinstance(context, bool) or not isinstance(context, int) or context < 0:
        raise RequestError("field 'context' must be a non-negative integer")
    a_name = _string_field(request, "a_name", "a", single_line=True)
    b_name = _string_field(request, "b_name", "b", single_line=True)
    summary = request.get("summary", False)
    if not isinstance(summary, bool):
        raise RequestError("field 'summary' must be a boolean")
    return a, b, context, a_name, b_name, summary


def run(request):
    """Return the complete stdout text for one request."""
    try:
        a, b, context, a_name, b_name, summary = _validate(request)
    except RequestError as exc:
        return f"error: {exc}\n"
    text, stats = unified_diff(a, b, context, a_name, b_name)
    if summary:
        text += f"summary: hunks={stats.hunks} added={stats.added} removed={stats.removed}\n"
    return text


def main():
    sys.stdin.reconfigure(encoding="utf-8")
    sys.stdout.reconfigure(encoding="utf-8", newline="\n")
    try:
        request = json.loads(sys.stdin.read())
    except ValueError:
        sys.stdout.write("error: input must be a JSON object\n")
        return
    sys.stdout.write(run(request))


if __name__ == "__main__":
    main()
