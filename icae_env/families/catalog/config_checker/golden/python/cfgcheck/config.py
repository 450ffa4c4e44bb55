"""The resolved settings: sections of keys, under the house rules for repeats and order."""

from .errors import Failed
from .rules import DUPLICATES, key_name, ordered
from .scanner import scan


def load(text):
    """Section -> {key: value}, in output order; Failed on the first fatal problem."""
    sections, issues = scan(text)
    for issue in issues:
        if issue.code != "E004" or DUPLICATES == "error":
            raise Failed(f"line {issue.line}: {issue.code} {issue.message}")
    resolved = {}
    for name, definitions in sections.items():
        keys = resolved.setdefault(name, {})
        for d in definitions:
            if d.key not in keys or DUPLICATES == "last":
                keys[d.key] = d.value
    return {name: {k: resolved[name][k] for k in ordered(resolved[name])} for name in ordered(resolved)}


def lookup(config, path):
    """The raw value at ``section.key``, or None when absent; Failed for a path without a dot."""
    if "." not in path:
        raise Failed(f"bad key path: {path}")
    section, key = path.split(".", 1)
    return config.get(section, {}).get(key_name(key))
