"""stdin/stdout adapter: one JSON request in, fire times (or one error line) out."""
import json
import re
import sys
import datetime as dt

from cron_next import CronSyntaxError, InputError, next_fire_times

MAX_COUNT = 1000
_WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
_STAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}")


def _parse_from(value):
    if not isinstance(value, str) or not _STAMP.fullmatch(value):
        raise InputError("invalid from timestamp")
    try:
        return dt.datetime(int(value[0:4]), int(value[5:7]), int(value[8:10]),
                           int(value[11:13]), int(value[14:16]))
    except ValueError:
        raise InputError("invalid from timestamp") from None


def _parse_count(request):
    if "count" not in request:
        return 1
    value = request["count"]
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_COUNT:
        raise InputError(f"count must be an integer from 1 to {MAX_COUNT}")
    return value


def format_time(moment):
    return (f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
            f"T{moment.hour:02d}:{moment.minute:02d} {_WEEKDAYS[moment.weekday()]}")


def run(request):
    """Return the full stdout text for one request."""
    try:
        if not isinstance(request, dict):
            raise InputError("input must be a JSON object")
        expr = request.get("expr")
        if not isinstance(expr, str):
            raise InputError("expr must be a string")
        start = _parse_from(request.get("from"))
        count = _parse_count(request)
        times = next_fire_times(expr, start, count)
    except (InputError, CronSyntaxError) as exc:
        return f"error: {exc}\n"
    lines = [format_time(t) for t in times]
    if len(times) < count:
        lines.append("no more fire times")
    return "".join(line + "\n" for line in lines)


def main():
    sys.stdin.reconfigure(encoding="utf-8")
    sys.stdout.reconfigure(encoding="utf-8", newline="\n")
    raw = sys.stdin.read()
    try:
        request = json.loads(raw)
    except ValueError:
        sys.stdout.write("error: input must be a JSON object\n")
        return
    sys.stdout.write(run(request))


if __name__ == "__main__":
    main()
