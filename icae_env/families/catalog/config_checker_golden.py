"""The Python golden of ``config-checker``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "cfgcheck/__init__.py": '''"""Lint, normalise, type, query and export INI-style settings files."""

from .app import handle

__all__ = ["handle"]
''',
    "cfgcheck/errors.py": '''"""Errors that end a request: each prints one error line."""


class Failed(Exception):
    """The request cannot be answered; its text follows "error: <file>" on the only output line."""
''',
    "cfgcheck/scanner.py": '''"""The line scanner: sections, key definitions and every problem, with line numbers."""

import re
from dataclasses import dataclass

from .rules import CONTINUATION, key_name, strip_comment

KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
SECTION = re.compile(r"[A-Za-z0-9_-]+")
SPACE = " \\t"
SWALLOW = object()


@dataclass(frozen=True)
class Issue:
    line: int
    code: str
    message: str


@dataclass
class Definition:
    key: str
    value: str
    line: int


class Scanner:
    def __init__(self):
        self.sections = {}
        self.issues = []
        self.section = None
        self.skipping = False
        self.target = None

    def feed(self, number, line):
        stripped = line.strip(SPACE)
        if not stripped or stripped[0] in "#;":
            self.target = None
        elif stripped[0] == "[":
            self.header(number, stripped)
        elif self.skipping:
            return
        elif line[0] in SPACE and CONTINUATION:
            self.continuation(number, stripped)
        elif "=" not in stripped:
            self.target = None
            self.issues.append(Issue(number, "E001", "missing '='"))
        else:
            self.key_line(number, stripped)

    def header(self, number, stripped):
        self.target = None
        text = strip_comment(stripped).rstrip(SPACE)
        name = text[1:-1].strip(SPACE) if text.endswith("]") else ""
        self.skipping = not SECTION.fullmatch(name)
        if self.skipping:
            self.issues.append(Issue(number, "E003", "bad section header"))
        else:
            self.section = name
            self.sections.setdefault(name, [])

    def continuation(self, number, stripped):
        if self.target is None:
            self.issues.append(Issue(number, "E006", "orphan continuation line"))
        elif self.target is not SWALLOW:
            piece = strip_comment(stripped).rstrip(SPACE)
            self.target.value = f"{self.target.value} {piece}" if self.target.value else piece

    def key_line(self, number, stripped):
        raw, value = stripped.split("=", 1)
        raw, self.target = raw.strip(SPACE), SWALLOW
        if not KEY.fullmatch(raw):
            self.issues.append(Issue(number, "E005", f"invalid key name: '{raw}'"))
        elif self.section is None:
            self.issues.append(Issue(number, "E002", f"key outside section: '{key_name(raw)}'"))
        else:
            key, defined = key_name(raw), self.sections[self.section]
            first = next((d for d in defined if d.key == key), None)
            if first:
                message = f"duplicate key '{self.section}.{key}' (first on line {first.line})"
                self.issues.append(Issue(number, "E004", message))
            self.target = Definition(key, strip_comment(value).strip(SPACE), number)
            defined.append(self.target)


def scan(text):
    """``(sections, issues)``: section -> its definitions in file order, and every problem in line order."""
    scanner = Scanner()
    for number, line in enumerate(text.split("\\n"), start=1):
        scanner.feed(number, line[:-1] if line.endswith("\\r") else line)
    return scanner.sections, scanner.issues
''',
    "cfgcheck/config.py": '''"""The resolved settings: sections of keys, under the house rules for repeats and order."""

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
''',
    "cfgcheck/values.py": '''"""Typed views of raw values: inference, conversion and rendering."""

import re

from .errors import Failed
from .rules import FALSE_WORDS, TRUE_WORDS, int_allowed, list_items

INT = re.compile(r"[+-]?[0-9]+")


def quote(text):
    return '"' + text.replace("\\\\", "\\\\\\\\").replace('"', '\\\\"') + '"'


def as_bool(value):
    low = value.lower()
    return "true" if low in TRUE_WORDS else "false" if low in FALSE_WORDS else None


def as_int(value):
    if not INT.fullmatch(value) or not int_allowed(value):
        return None
    digits = value.lstrip("+-").lstrip("0")
    return ("-" if value.startswith("-") and digits else "") + (digits or "0")


def as_list(items):
    return "[" + ", ".join(quote(item) for item in items if item) + "]"


def infer(value):
    """``(type, canonical text)``: bool, then int, then list, then str."""
    for kind, convert in (("bool", as_bool), ("int", as_int)):
        result = convert(value)
        if result is not None:
            return kind, result
    items = list_items(value)
    return ("list", as_list(items)) if items is not None else ("str", quote(value))


def convert(value, kind, path):
    """``value`` as ``kind`` (str, int, bool or list) for a lookup."""
    if kind == "str":
        return value
    if kind == "list":
        items = list_items(value)
        return as_list([value] if items is None else items)
    result = as_bool(value) if kind == "bool" else as_int(value)
    if result is None:
        raise Failed(f"cannot convert to {kind}: {path}")
    return result
''',
    "cfgcheck/actions.py": '''"""The five actions; each returns its output lines."""

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
''',
    "cfgcheck/app.py": '''"""One request in, one answer out: the request is checked first, then the action runs."""

import re

from .actions import ACTIONS
from .errors import Failed

PREFIX = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
CHECKS = (
    (lambda r: r.get("action") in ACTIONS, "unknown action"),
    (lambda r: isinstance(r.get("text"), str), "missing text"),
    (lambda r: r["action"] != "get" or isinstance(r.get("key"), str), "missing key"),
    (lambda r: r["action"] != "get" or r.get("as", "str") in ("str", "int", "bool", "list"), "bad type"),
    (lambda r: r["action"] != "get" or isinstance(r.get("default", ""), str), "bad default"),
    (lambda r: r["action"] != "env" or isinstance(r.get("prefix", "x"), str) and PREFIX.fullmatch(r.get("prefix", "x")),
     "bad prefix"),
)


def handle(data):
    """The whole output of one request (a JSON object with action, file, text and the action's options)."""
    if not isinstance(data, dict):
        return "error: input must be an object\\n"
    name = data.get("file")
    file = name.strip() if isinstance(name, str) and name.strip() else "settings.ini"
    try:
        problem = next((text for check, text in CHECKS if not check(data)), None)
        if problem:
            raise Failed(problem)
        lines = ACTIONS[data["action"]](data, file)
    except Failed as exc:
        lines = [f"error: {file}: {exc}"]
    return "\\n".join(lines) + "\\n"
''',
}

_SPACED = '''def strip_comment(text):
    """Cut ``text`` at the first # or ; that follows a space or a tab."""
    for i in range(1, len(text)):
        if text[i] in "#;" and text[i - 1] in " \\t":
            return text[:i]
    return text
'''

_QUOTED = """def env_value(value):
    return "'" + value.replace("'", "'\\\\''") + "'"
"""

_NEEDED = """SAFE = re.compile(r"[A-Za-z0-9_./:@%+,-]+")


def env_value(value):
    return value if SAFE.fullmatch(value) else "'" + value.replace("'", "'\\\\''") + "'"
"""

_PADDED_IS_TEXT = """def int_allowed(value):
    digits = value.lstrip("+-")
    return digits == "0" or not digits.startswith("0")
"""

_COMMA = """def list_items(value):
    return [item.strip(" \\t") for item in value.split(",")] if "," in value else None
"""

_BRACKETS = """def list_items(value):
    if not (value.startswith("[") and value.endswith("]")):
        return None
    return [item.strip(" \\t") for item in value[1:-1].split(",")]
"""

BLOCKS = {
    "duplicates": {
        "last": 'DUPLICATES = "last"\n',
        "first": 'DUPLICATES = "first"\n',
        "error": 'DUPLICATES = "error"\n',
    },
    "key_case": {
        "fold": "def key_name(raw):\n    return raw.lower()\n",
        "keep": "def key_name(raw):\n    return raw\n",
    },
    "inline_comments": {"spaced": _SPACED, "none": "def strip_comment(text):\n    return text\n"},
    "continuation": {"indent": "CONTINUATION = True\n", "none": "CONTINUATION = False\n"},
    "booleans": {
        "words": 'TRUE_WORDS = frozenset({"true", "yes", "on"})\nFALSE_WORDS = frozenset({"false", "no", "off"})\n',
        "strict": 'TRUE_WORDS = frozenset({"true"})\nFALSE_WORDS = frozenset({"false"})\n',
        "numeric": 'TRUE_WORDS = frozenset({"true", "1"})\nFALSE_WORDS = frozenset({"false", "0"})\n',
    },
    "leading_zeros": {
        "number": "def int_allowed(value):\n    return True\n",
        "text": _PADDED_IS_TEXT,
    },
    "list_syntax": {
        "comma": _COMMA,
        "brackets": _BRACKETS,
    },
    "lint_order": {
        "by_line": "def lint_order(issues):\n    return sorted(issues, key=lambda issue: issue.line)\n",
        "by_code": "def lint_order(issues):\n    return sorted(issues, key=lambda issue: (issue.code, issue.line))\n",
    },
    "dump_order": {
        "first_seen": "def ordered(names):\n    return list(names)\n",
        "sorted": "def ordered(names):\n    return sorted(names)\n",
    },
    "missing_key": {"error": "MISSING_KEY_FAILS = True\n", "empty": "MISSING_KEY_FAILS = False\n"},
    "env_names": {"single": 'ENV_JOINER = "_"\n', "double": 'ENV_JOINER = "__"\n'},
    "env_quotes": {"never": "def env_value(value):\n    return value\n", "always": _QUOTED, "needed": _NEEDED},
}

#: The block of a decision the task does not have (no input of its features is sampled, so any value works).
FALLBACK = {name: next(iter(values)) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str]) -> str:
    """``cfgcheck/rules.py``: the chosen block of every decision (absent decisions take their fallback)."""
    parts = ['"""The house rules of this checker (one block per product decision)."""\n', "import re\n"]
    parts += [blocks[values.get(name, FALLBACK[name])] for name, blocks in BLOCKS.items()]
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``."""
    return {**CORE, "cfgcheck/rules.py": rules_module(values)}
