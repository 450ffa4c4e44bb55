"""One request in, one report out; the request is checked field by field first."""

from .graph import build_graph
from .reports import NEEDS_ROOT, NEEDS_TARGET, REPORTS
from .rules import canonical, is_name, names_in


def _names(value):
    return isinstance(value, list) and names_in(value) is not None


def bad_field(data):
    """The first field that is not as documented, or None."""
    packages, op = data.get("packages"), data["op"]
    if not isinstance(packages, dict) or not all(is_name(key) and _names(deps) for key, deps in packages.items()):
        return "packages"
    if op in NEEDS_ROOT and not is_name(data.get("root")):
        return "root"
    if op in NEEDS_TARGET and not is_name(data.get("target")):
        return "target"
    if op == "install" and data.get("installed") is not None and not _names(data["installed"]):
        return "installed"
    return None


def _lines(data):
    op = data.get("op")
    if not isinstance(op, str) or op not in REPORTS:
        return [f"error: unknown op: {op}" if isinstance(op, str) else "error: unknown op"]
    field = bad_field(data)
    if field:
        return [f"error: bad field: {field}"]
    graph = build_graph(data["packages"])
    root = canonical(data["root"]) if op in NEEDS_ROOT else None
    if root is not None and root not in graph:
        return [f"error: unknown root: {data['root']}"]
    return REPORTS[op](data, graph, root)


def handle(data):
    """The whole output of one request (a JSON object with op, packages and what the op needs)."""
    if not isinstance(data, dict):
        return "error: unreadable input\n"
    return "\n".join(_lines(data)) + "\n"
