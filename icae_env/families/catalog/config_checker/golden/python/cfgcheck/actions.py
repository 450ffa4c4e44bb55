"""The five actions; each returns its output lines."""

from .config import load, lookup
from .errors import Failed
from .rules import ENV_JOINER, MISSING_KEY_FAILS, env_value, lint_order
from .scanner import scan
from .values import convert, infer


def dump(request, file):
    lines = [f"# {file}"]
    for name, keys in load(request["text"]).items():
        lines += ([""] if len(lines) > 1 else []) + [f"[{name}]"]
        lines += [f"{key} = {value}" if value else f"{key} =" for key, value in keys.items()]
    return lines


def lint(request, file):
    issues = lint_order(scan(request["text"])[1])
    if not issues:
        return [f"{file}: OK"]
    count = f"{len(issues)} problem found" if len(issues) == 1 else f"{len(issues)} problems found"
    return [f"{file}:{i.line}: {i.code} {i.message}" for i in issues] + [f"{file}: {count}"]


def get(request, file):
    config, path = load(request["text"]), request["key"]
    value = lookup(config, path)
    if value is None and "default" in request:
        return [request["default"]]
    if value is None:
        if MISSING_KEY_FAILS:
            raise Failed(f"key not found: {path}")
        return [""]
    return [convert(value, request.get("as", "str"), path)]


def types(request, file):
    lines = [f"# {file}"]
    for name, keys in load(request["text"]).items():
        lines += [f"{name}.{key} {' '.join(infer(value))}" for key, value in keys.items()]
    return lines


def env(request, file):
    prefix, lines = request.get("prefix", ""), [f"# {file}"]
    for name, keys in load(request["text"]).items():
        for key, value in keys.items():
            variable = ENV_JOINER.join(part for part in (prefix, name, key) if part).upper().replace("-", "_")
            lines.append(f"{variable}={env_value(value)}")
    return lines


ACTIONS = {"dump": dump, "lint": lint, "get": get, "types": types, "env": env}
