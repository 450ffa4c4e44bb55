"""The line scanner: sections, key definitions and every problem, with line numbers."""

import re
from dataclasses import dataclass

from .rules import CONTINUATION, key_name, strip_comment

KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
SECTION = re.compile(r"[A-Za-z0-9_-]+")
SPACE = " \t"
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
    for number, line in enumerate(text.split("\n"), start=1):
        scanner.feed(number, line[:-1] if line.endswith("\r") else line)
    return scanner.sections, scanner.issues
