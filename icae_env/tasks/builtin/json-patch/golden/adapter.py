"""Execution adapter: one JSON request on stdin -> the patched document (or an error) on stdout.

All patch logic lives in the json_patch package; this file validates the request, runs the patch and
renders the outcome.
"""
import json
import sys

from json_patch import canonical, run, step_line

MODES = ("apply", "explain")


class RequestError(Exception):
    pass


def _validate(request):
    if not isinstance(request, dict):
        raise RequestError("input must be an object")
    if "doc" not in request:
        raise RequestError("missing doc")
    if not isinstance(request.get("patch"), list):
        raise RequestError("patch must be a list")
    if "mode" in request and request["mode"] not in MODES:
        raise RequestError("unknown mode")


def handle(request) -> str:
    try:
        _validate(request)
    except RequestError as exc:
        return f"error: {exc}\n"
    outcome = run(request["doc"], request["patch"])
    lines = []
    if request.get("mode", "apply") == "explain":
        lines.extend(step_line(step) for step in outcome.steps)
    if outcome.error is not None:
        lines.append(f"error: {outcome.error}")
    lines.append(canonical(outcome.document))
    return "\n".join(lines) + "\n"


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
