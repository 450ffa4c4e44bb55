"""Line scanner for INI-style text and policy-based resolution into a Config."""
import re

from .errors import ConfigParseError
from .model import Config, Definition, Issue

DUPLICATE_POLICIES = ("last", "first", "error")

_KEY_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_SECTION_RE = re.compile(r"[A-Za-z0-9_-]+")
_WS = " \t"

# Continuation targets that are not a Definition.
_ABSORB = object()     # swallow continuation lines silently (after a rejected key line)


def strip_inline_comment(text):
    """Cut `text` at the first '#' or ';' that is preceded by a space or tab."""
    for i in range(1, len(text)):
        if text[i] in "#;" and text[i - 1] in _WS:
            return text[:i]
    return text


class _Scanner:
    def __init__(self):
        self.sections = {}        # name -> list[Definition], in first-appearance order
        self.issues = []
        self.section = None       # current section name, None before any header
        self.skipping = False     # after a bad header, until the next '[' line
        self.target = None        # continuation target: Definition, _ABSORB or None

    def issue(self, line_no, code, message):
        self.issues.append(Issue(line_no, code, message))

    def feed(self, line_no, line):
        stripped = line.strip(_WS)
        if stripped == "" or stripped[0] in "#;":
            self.target = None
            return
        if stripped[0] == "[":
            self.header(line_no, stripped)
            return
        if self.skipping:
            return
        if line[0] in _WS:
            self.continuation(line_no, stripped)
            return
        self.target = None
        if "=" not in stripped:
            self.issue(line_no, "E001", "missing '='")
            return
        self.key_line(line_no, stripped)

    def header(self, line_no, stripped):
        self.target = None
        text = strip_inline_comment(stripped).rstrip(_WS)
        name = text[1:-1].strip(_WS) if text.endswith("]") else ""
        if not _SECTION_RE.fullmatch(name):
            self.issue(line_no, "E003", "bad section header")
            self.skipping = True
            return
        self.skipping = False
        self.section = name
        self.sections.setdefault(name, [])

    def continuation(self, line_no, stripped):
        if self.target is None:
            self.issue(line_no, "E006", "orphan continuation line")
            return
        if self.target is _ABSORB:
            return
        piece = strip_inline_comment(stripped).rstrip(_WS)
        d = self.target
        d.value = piece if d.value == "" else d.value + " " + piece

    def key_line(self, line_no, stripped):
        raw_key, raw_value = stripped.split("=", 1)
        raw_key = raw_key.strip(_WS)
        value = strip_inline_comment(raw_value).strip(_WS)
        self.target = _ABSORB
        if not _KEY_RE.fullmatch(raw_key):
            self.issue(line_no, "E005", f"invalid key name: '{raw_key}'")
            return
        key = raw_key.lower()
        if self.section is None:
            self.issue(line_no, "E002", f"key outside section: '{key}'")
            return
        defs = self.sections[self.section]
        for d in defs:
            if d.key == key:
                self.issue(line_no, "E004",
                           f"duplicate key '{self.section}.{key}' (first on line {d.line})")
                break
        definition = Definition(self.section, key, value, line_no)
        defs.append(definition)
        self.target = definition


def scan(text):
    """Scan `text`; return (sections, issues). Issues are in line order."""
    scanner = _Scanner()
    for line_no, line in enumerate(text.split("\n"), start=1):
        if line.endswith("\r"):
            line = line[:-1]
        scanner.feed(line_no, line)
    return scanner.sections, scanner.issues


def lint(text):
    """Every problem in `text` (duplicates included), ordered by line."""
    return scan(text)[1]


def load(text, duplicates="last"):
    """Parse `text` into a Config; raise ConfigParseError on the first fatal problem.

    Duplicate keys are fatal only under the "error" policy; "last" keeps the last value
    (at the key's first position), "first" keeps the first value.
    """
    if duplicates not in DUPLICATE_POLICIES:
        raise ValueError(f"unknown duplicates policy: {duplicates}")
    sections, issues = scan(text)
    for issue in issues:
        if issue.code != "E004" or duplicates == "error":
            raise ConfigParseError(issue)
    config = Config()
    for name, defs in sections.items():
        keys = config.sections.setdefault(name, {})
        for d in defs:
            if d.key not in keys or duplicates == "last":
                keys[d.key] = d.value
    return config
