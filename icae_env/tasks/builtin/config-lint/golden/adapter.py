"""Execution adapter: one JSON request on stdin -> one rendered result on stdout.

All parsing, typing and linting lives in the config_lint package; this file only validates the
request shape, routes on "action" and turns typed errors into the documented error lines.
"""
import json
import sys

from config_lint import (DUPLICATE_POLICIES, TYPES, ConfigParseError, ConversionError,
                         LookupFailed, convert, lint, load, render_dump, render_lint,
                         render_types)

ACTIONS = ("dump", "lint", "types", "get")


class RequestError(Exception):
    pass


def _validate(request):
    if not isinstance(request, dict):
        raise RequestError("input must be an object")
    if request.get("action") not in ACTIONS:
        raise RequestError("unknown action")
    if not isinstance(request.get("text"), str):
        raise RequestError("missing text")
    if "duplicates" in request and request["duplicates"] not in DUPLICATE_POLICIES:
        raise RequestError("bad duplicates policy")
    if request["action"] == "get":
        if not isinstance(request.get("key"), str):
            raise RequestError("missing key")
        if "as" in request and request["as"] not in TYPES:
            raise RequestError("bad type")
        if "default" in request and not isinstance(request["default"], str):
            raise RequestError("bad default")


def _get(request, config):
    path = request["key"]
    try:
        value = config.get(path)
    except LookupFailed as exc:
        if exc.reason == "key not found" and "default" in request:
            return request["default"] + "\n"
        raise
    return convert(value, request.get("as", "str"), path) + "\n"


def handle(request):
    try:
        _validate(request)
        action = request["action"]
        if action == "lint":
            return render_lint(lint(request["text"]))
        config = load(request["text"], request.get("duplicates", "last"))
        if action == "dump":
            return render_dump(config)
        if action == "types":
            return render_types(config)
        return _get(request, config)
    except RequestError as exc:
        return f"error: {exc}\n"
    except ConfigParseError as exc:
        return f"error: {exc.issue}\n"
    except (LookupFailed, ConversionError) as exc:
        return f"error: {exc}\n"


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
