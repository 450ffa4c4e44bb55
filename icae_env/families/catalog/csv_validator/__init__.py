"""``csv-validator``: check partner CSV exports against a column schema and report every problem.

Generalised from the built-in ``csv-schema`` task: its records name the decisions (spreadsheet row numbers, header
problems stopping the row checks, which words are booleans, what a blank cell is, full-match patterns, fatal
quoting errors, the ``... more not shown`` line). Texts and decisions are in ``family.yaml``, the golden in
``golden/`` and ``blocks/``; the samplers are here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["CsvValidator"]

_EMAIL = r"[a-z]+(\.[a-z]+)?@[a-z]+\.(com|org|net)"
_DOMAINS = ("mail.com", "post.org", "inbox.net")
_CODE_MISSES = ("{p}-{n:05d}", "X{p}-{n:04d}", "{p}-{n:04d} ", "{p}{n:04d}", "{p}-{n:04d}a")


@dataclass
class _Column:
    """One schema column and what its cells are drawn from."""

    spec: dict[str, Any]
    kind: str
    low: int = 0
    high: int = 100
    values: tuple[str, ...] = ()
    prefix: str = ""


@dataclass
class _Table:
    """A file in the making: header names and records of already-encoded fields (or raw broken lines)."""

    columns: list[_Column]
    header: list[str]
    rows: list[list[str]] = field(default_factory=list)


def _encode(value: str, rng: random.Random) -> str:
    """A cell as a CSV field: quoted when it must be (and now and then when it need not)."""
    if any(ch in value for ch in ',"\n') or (value and rng.random() < 0.08):
        return '"' + value.replace('"', '""') + '"'
    return value


class _Sampler:
    """Draws one request from the skin's pools and ``rng`` only."""

    def __init__(self, plan: Plan, rng: random.Random) -> None:
        self.pools, self.rng = plan.skin.pools, rng

    # --- columns and cells -------------------------------------------------------------------------------------
    def column(self, kind: str, used: set[str]) -> _Column:
        rng, pools = self.rng, self.pools
        pool = {"string": "text", "regex": rng.choice(("code", "email"))}.get(kind, kind)
        options = [p for p in pools[pool] if (p if isinstance(p, str) else p[0]) not in used]
        picked = rng.choice(options)
        name = picked if isinstance(picked, str) else picked[0]
        used.add(name)
        spec: dict[str, Any] = (
            {"name": name} if kind == "string" and rng.random() < 0.5 else {"name": name, "type": kind}
        )
        column = _Column(spec, kind)
        if kind in ("int", "float"):
            column.low, column.high = picked[1], picked[2]
            for bound, value in (("min", column.low), ("max", column.high)):
                if rng.random() < 0.6:
                    spec[bound] = value
        elif kind == "enum":
            column.values = tuple(picked[1:])
            spec["values"] = list(column.values)
        elif pool == "code":
            column.prefix, column.kind = picked[1], "code"
            spec["pattern"] = f"{picked[1]}-[0-9]{{4}}"
        elif pool == "email":
            column.kind, spec["pattern"] = "email", _EMAIL
        return column

    def good(self, column: _Column) -> str:
        rng = self.rng
        if column.kind == "int":
            return str(rng.randint(column.low, column.high))
        if column.kind == "float":
            return f"{rng.uniform(column.low, column.high):.{rng.choice((1, 2))}f}"
        if column.kind == "bool":
            return rng.choice(("true", "false", "TRUE", "False"))
        if column.kind == "date":
            return self.date()
        if column.kind == "enum":
            return rng.choice(column.values)
        if column.kind == "code":
            return f"{column.prefix}-{rng.randint(0, 9999):04d}"
        if column.kind == "email":
            first, *rest = rng.choice(self.pools["names"]).replace(",", "").lower().split()
            return f"{first}.{rest[-1]}@{rng.choice(_DOMAINS)}" if rest else f"{first}@{rng.choice(_DOMAINS)}"
        return str(rng.choice(self.pools["names"]))

    def date(self) -> str:
        rng = self.rng
        year, month, day = rng.randint(2019, 2025), rng.randint(1, 12), rng.randint(1, 28)
        late = rng.randint(13, 28)
        return rng.choice((
            f"{year}-{month:02d}-{day:02d}", f"{year}-{month:02d}-{late:02d}", f"{late:02d}/{month:02d}/{year}",
            f"{month:02d}/{late:02d}/{year}", f"{day:02d}/{month:02d}/{year}", f"{year}-02-30", f"{year}-{month}-{day}",
            f"31/04/{year}", "2024-02-29", "29/02/2024", "02/29/2023",
        ))  # fmt: skip

    def bad(self, column: _Column) -> str:
        rng = self.rng
        spec = column.spec
        if column.kind in ("int", "float") and ("min" in spec or "max" in spec) and rng.random() < 0.4:
            if "max" in spec and ("min" not in spec or rng.random() < 0.5):
                return str(spec["max"] + rng.randint(1, 50))
            return str(spec["min"] - rng.randint(1, 9))
        options = {
            "int": ("n/a", "5.0", " 12", "1e3", "12 ", "-", "twelve", "1,000", "+7", "007"),
            "float": ("1,5", "nan", "3.", ".5", "1e", "-", "N/A", "12.5.1", "-1e3"),
            "bool": ("yes", "no", "Yes", "NO", "1", "0", "y", "on", "off", "t"),
            "enum": tuple(v for value in column.values for v in (value.title(), value.upper(), value + " ")) + ("tbd",),
            "code": tuple(f.format(p=column.prefix, n=rng.randint(0, 99999)) for f in _CODE_MISSES)
            + (column.prefix.lower(),),
            "email": ("Ada.Park@mail.com", "jo.mensah@mail.com.au", "lee at post.org", "kim@inbox", " dev@mail.com"),
            "date": (self.date(),),
        }.get(column.kind, ("",))  # fmt: skip
        return rng.choice(options)

    # --- tables -----------------------------------------------------------------------------------------------------
    def table(self, kinds: list[str], rows: int, faults: float) -> _Table:
        """Columns of ``kinds`` (shuffled) and ``rows`` records; with faults, some required columns and blanks."""
        rng, used = self.rng, set[str]()
        columns = [self.column(kind, used) for kind in dict.fromkeys(kinds)]
        rng.shuffle(columns)
        for column in columns:
            if faults and rng.random() < 0.3:
                column.spec["required"] = True
        table = _Table(columns, [c.spec["name"] for c in columns])
        for _ in range(rows):
            cells = [self.cell(c, faults) for c in columns]
            table.rows.append([_encode(v, rng) for v in cells])
        if faults and rng.random() < 0.25:  # exports often carry a column nobody asked for
            _extra(table, rng.randint(0, len(columns)), self)
        return table

    def cell(self, column: _Column, faults: float) -> str:
        roll = self.rng.random()
        if roll < faults / 4:
            return self.rng.choice(("", "  ", " "))
        return self.bad(column) if roll < faults else self.good(column)

    def text(self, table: _Table, messy: bool) -> str:
        rng = self.rng
        lines = [",".join(_encode(name, rng) for name in table.header)]
        for row in table.rows:
            if messy and rng.random() < 0.25:
                lines.append("")
            lines.append(",".join(row))
        newline = "\r\n" if messy and rng.random() < 0.2 else "\n"
        return newline.join(lines) + (newline if rng.random() < 0.85 else "")

    def request(self, table: _Table, messy: bool) -> dict[str, Any]:
        stem = self.rng.choice(self.pools["files"])
        return {
            "file": f"{stem}_{self.rng.randint(1, 999):03d}.csv",
            "csv": self.text(table, messy),
            "schema": {"columns": [c.spec for c in table.columns]},
        }


def _kinds(rng: random.Random, fixed: list[str], optional: list[str], low: int, high: int) -> list[str]:
    extra = rng.sample(optional, min(len(optional), rng.randint(low, high)))
    return fixed + extra


#: Column types whose cells show core decisions (flag words, date formats) in any feature's output.
_CORE_MIX = ["float", "bool", "date", "int", "bool", "date"]


class CsvValidator(Family):
    """Schema checks of CSV exports; texts and decisions in ``family.yaml``."""

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        sampler = _Sampler(plan, rng)
        if kind == "malformed" and rng.random() < 0.4:
            return _malformed(sampler, feature)
        make = {
            "feature1_header": _header, "feature2_types": _types, "feature3_required": _required,
            "feature4_choices": _choices, "feature5_quoting": _quoting, "feature6_cap": _cap,
        }[feature]  # fmt: skip
        return make(sampler, kind)


def _header(s: _Sampler, kind: SampleKind) -> dict[str, Any]:
    rng = s.rng
    rows = {"public": rng.randint(2, 4), "boundary": rng.choice((0, 1, 1, 1, 2))}.get(kind, rng.randint(2, 6))
    mix = ["float", "bool", "int"] if kind == "public" else _CORE_MIX
    table = s.table(_kinds(rng, ["string", "int"], mix, 1, 3), rows, 0 if kind == "public" else 0.25)
    if kind == "public":
        if rng.random() < 0.3:
            _drop(table, 0, s)
            _drop(table, 0, s)
    elif kind == "boundary" and rng.random() < 0.2:
        table.header = [f"{name}_old" for name in table.header]
    else:
        for _ in range(rng.randint(1, 3)):
            rng.choice((_drop, _extra, _duplicate, _recase))(table, rng.randrange(len(table.header)), s)
    return s.request(table, kind != "public")


def _drop(table: _Table, at: int, s: _Sampler) -> None:
    if len(table.header) > 1:
        del table.header[at]
        for row in table.rows:
            del row[at]


def _insert(table: _Table, at: int, name: str, cells: tuple[str, ...], rng: random.Random) -> None:
    table.header.insert(at, name)
    for row in table.rows:
        row.insert(at, _encode(rng.choice(cells), rng))


def _extra(table: _Table, at: int, s: _Sampler) -> None:
    cells = ("", "x", "see memo", str(s.rng.randint(1, 999)), "n/a")
    _insert(table, at, str(s.rng.choice(s.pools["extra"])), cells, s.rng)


def _duplicate(table: _Table, at: int, s: _Sampler) -> None:
    _insert(table, at, table.header[s.rng.randrange(len(table.header))], ("", "1", "x", "n/a"), s.rng)


def _recase(table: _Table, at: int, s: _Sampler) -> None:
    name = table.header[at]
    table.header[at] = s.rng.choice((name.upper(), name.title(), f" {name}"))


def _types(s: _Sampler, kind: SampleKind) -> dict[str, Any]:
    rng = s.rng
    if kind == "public":
        return s.request(s.table(_kinds(rng, ["int"], ["string", "float", "bool"], 1, 3), rng.randint(2, 4), 0), False)
    kinds = _kinds(rng, ["int", rng.choice(("bool", "date"))], ["float", "bool", "date", "string"], 1, 3)
    rows = rng.randint(1, 2) if kind == "boundary" else rng.randint(3, 7)
    table = s.table(kinds, rows, 0.3)
    for column_at, column in enumerate(table.columns):
        for row in table.rows:
            if column.kind in ("bool", "date") and rng.random() < 0.6:
                row[column_at] = s.bad(column)
            if kind == "boundary" and column.kind in ("int", "float") and rng.random() < 0.6:
                row[column_at] = str(column.spec.get(rng.choice(("min", "max")), rng.choice(("-0", "+0", "0"))))
    return s.request(table, True)


def _required(s: _Sampler, kind: SampleKind) -> dict[str, Any]:
    rng = s.rng
    kinds = _kinds(rng, ["string", "int"], ["float", "bool", "string"] if kind == "public" else _CORE_MIX, 1, 2)
    rows = {"public": rng.randint(2, 4), "boundary": rng.randint(1, 2)}.get(kind, rng.randint(3, 7))
    table = s.table(kinds, rows, 0 if kind == "public" else 0.15)
    required = rng.sample(range(len(table.columns)), 2)
    for at in required:
        table.columns[at].spec["required"] = True
    for row in table.rows:
        for at in range(len(table.columns)):
            if kind == "public":
                if at not in required and rng.random() < 0.2:
                    row[at] = ""
            elif rng.random() < 0.25:
                row[at] = rng.choice(("", "  ", '""', " ", "\t", '" "'))
        if kind != "public" and rng.random() < 0.12:
            row[len(row) :] = [""] if rng.random() < 0.5 else []
            if len(row) == len(table.columns) and len(row) > 1:
                row.pop()
    return s.request(table, kind != "public")


def _choices(s: _Sampler, kind: SampleKind) -> dict[str, Any]:
    rng = s.rng
    mix = ["enum", "regex", "string"] + ([] if kind == "public" else ["bool", "date", "int"])
    table = s.table(_kinds(rng, ["enum", "regex"], mix, 1, 2), rng.randint(2, 6), 0 if kind == "public" else 0.2)
    if kind == "boundary" and rng.random() < 0.5:
        for column in table.columns:
            if column.kind == "enum":
                column.values = column.values[:1]
                column.spec["values"] = list(column.values)
            elif column.kind == "code":
                column.spec["pattern"] = f"^{column.prefix}-[0-9]{{4}}$"
    for row in table.rows:
        for at, column in enumerate(table.columns):
            if column.kind in ("enum", "code", "email"):
                good = s.good(column)
                row[at] = _encode(s.bad(column) if kind != "public" and rng.random() < 0.4 else good, rng)
    return s.request(table, kind != "public")


def _quoting(s: _Sampler, kind: SampleKind) -> dict[str, Any]:
    rng = s.rng
    rows = rng.randint(2, 4) if kind == "public" else rng.randint(3, 7)
    kinds = ["string", "int", "string"] + ([] if kind == "public" else [rng.choice(_CORE_MIX)])
    table = s.table(kinds, rows, 0 if kind == "public" else 0.2)
    text = next(at for at, c in enumerate(table.columns) if c.kind == "string")
    for row in table.rows:
        if rng.random() < 0.4:
            note = rng.choice(('said "ok", left', "two\n2 lines", "a, b and c", 'size 5"', "back\r\n5 min later"))
            row[text] = _encode(note, rng)
    if kind != "public":
        at = rng.randrange(len(table.rows)) if kind == "typical" else len(table.rows) - 1
        value = str(rng.choice(s.pools["names"])).replace(",", "")
        broken = rng.choice(('{v} "jr"', '"{v}"x', ' "{v}"', '"{v}', '{v}"'))
        table.rows[at][0] = broken.format(v=value)
        if broken == '"{v}':  # unterminated: it swallows the rest of the file, so make it the last record
            del table.rows[at + 1 :]
        if kind == "boundary" and rng.random() < 0.3:
            table.header[0] = '"' + table.header[0]
    return s.request(table, kind != "public")


def _cap(s: _Sampler, kind: SampleKind) -> dict[str, Any]:
    rng = s.rng
    if kind == "public":
        data = s.request(s.table(["string", "int", "float"], rng.randint(2, 4), 0), False)
        data["max_errors"] = rng.randint(1, 20)
        return data
    rows = rng.randint(15, 45) if kind != "boundary" else rng.choice((5, 10, 11, 20, 21))
    table = s.table(["string", "int", "float", "int", rng.choice(_CORE_MIX)], rows, 0.3 if kind != "boundary" else 0.5)
    data = s.request(table, True)
    if rng.random() < 0.4:
        data["max_errors"] = rng.randint(1, 15) if kind != "boundary" else rng.choice((1, rows // 2, rows))
    return data


def _malformed(s: _Sampler, feature: str) -> dict[str, Any]:
    rng = s.rng
    data = s.request(s.table(["string", "int", rng.choice(_CORE_MIX)], rng.randint(1, 3), 0.3), False)
    columns = data["schema"]["columns"]
    choice = rng.randrange(9)
    if choice == 0:
        del data["csv"]
    elif choice == 1:
        data["csv"] = data["csv"].splitlines()
    elif choice == 2:
        data["schema"] = rng.choice(({"columns": []}, columns, {"fields": columns}))
    elif choice == 3:
        columns[-1] = dict(columns[-1], type=rng.choice(("number", "Int", "text")))
    elif choice == 4:
        columns.append(rng.choice(({"type": "enum", "name": "kind"}, {"name": "code", "type": "regex", "pattern": "(["},
                                   {"name": columns[0]["name"]}, {"name": "", "type": "string"})))  # fmt: skip
    elif choice == 5:
        columns[-1] = dict(columns[-1], type="int", min=rng.choice(("5", 1.5, True)))
    elif choice == 6:
        data["max_errors"] = rng.choice((0, -2, "5", True, 2.5, None))
    elif choice == 7:
        data["csv"] = rng.choice(("", "\n", "\n\n", "\r\n\r\n"))
    else:
        data["schema"]["columns"][0] = dict(columns[0], required="yes")
    return data
