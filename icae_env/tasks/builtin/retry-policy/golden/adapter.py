"""stdin/stdout adapter: one JSON object in, the rendered report (or one error line) out."""

import json
import sys
from decimal import Decimal

from retry_policy import InputError, plan, render


def run(text: str) -> str:
    try:
        data = json.loads(text, parse_float=Decimal)
    except ValueError:
        return "error: invalid policy\n"
    if not isinstance(data, dict):
        return "error: invalid policy\n"
    try:
        report = plan(data.get("policy"), data.get("outcomes"))
    except InputError as exc:
        return f"error: invalid {exc.field}\n"
    return render(report)


def main() -> None:
    sys.stdout.write(run(sys.stdin.read()))


if __name__ == "__main__":
    main()
