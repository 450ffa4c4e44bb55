"""Text renderings of core results (still no I/O here)."""
from .coerce import infer


def _join(lines):
    return "".join(line + "\n" for line in lines)


def render_dump(config):
    lines = []
    for name, keys in config.sections.items():
        if lines:
            lines.append("")
        lines.append(f"[{name}]")
        for key, value in keys.items():
            lines.append(f"{key} = {value}" if value != "" else f"{key} =")
    return _join(lines)


def render_types(config):
    lines = []
    for name, key, value in config.items():
        type_name, canonical = infer(value)
        lines.append(f"{name}.{key} {type_name} {canonical}")
    return _join(lines)


def render_lint(issues):
    if not issues:
        return "OK\n"
    lines = [str(issue) for issue in issues]
    count = len(issues)
    lines.append(f"{count} problem found" if count == 1 else f"{count} problems found")
    return _join(lines)
