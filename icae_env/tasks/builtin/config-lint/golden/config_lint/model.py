"""Plain data model: issues, key definitions and the resolved configuration."""
from dataclasses import dataclass, field

from .errors import LookupFailed


@dataclass(frozen=True)
class Issue:
    line: int
    code: str
    message: str

    def __str__(self):
        return f"line {self.line}: {self.code} {self.message}"


@dataclass
class Definition:
    """One `key = value` line (plus its continuation lines) inside a section."""
    section: str
    key: str
    value: str
    line: int


@dataclass
class Config:
    """Resolved configuration: section name -> ordered {key: value}."""
    sections: dict = field(default_factory=dict)

    def items(self):
        for name, keys in self.sections.items():
            for key, value in keys.items():
                yield name, key, value

    def get(self, path):
        if "." not in path:
            raise LookupFailed("bad key path", path)
        section, key = path.split(".", 1)
        keys = self.sections.get(section)
        if keys is None or key.lower() not in keys:
            raise LookupFailed("key not found", path)
        return keys[key.lower()]
