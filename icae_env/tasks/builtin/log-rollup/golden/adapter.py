"""Execution adapter: one JSON request on stdin -> the rendered rollup (or one error line) on stdout."""

import json
import sys

from log_rollup import (DEFAULT_PERCENTILES, DEFAULT_TOP, DEFAULT_WINDOW, RequestError, render,
                        rollup)


def handle(request) -> str:
    if not isinstance(request, dict):
        return "error: request must be an object\n"
    if not isinstance(request.get("log"), str):
        return "error: missing log\n"
    try:
        report = rollup(
            request["log"],
            window=request.get("window", DEFAULT_WINDOW),
            top=request.get("top", DEFAULT_TOP),
            percentiles=request.get("percentiles", DEFAULT_PERCENTILES),
        )
    except RequestError as exc:
        return f"error: {exc}\n"
    return render(report)


def main() -> None:
    raw = sys.stdin.buffer.read().decode("utf-8")
    try:
        request = json.loads(raw)
    except ValueError:
        request = None
    sys.stdout.buffer.write(handle(request).encode("utf-8"))


if __name__ == "__main__":
    main()
