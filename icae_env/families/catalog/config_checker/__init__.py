"""``config-checker``: lint, normalise, type, query and export INI-style settings files.

Generalised from the built-in ``config-lint`` task: its records name the decisions (which value a repeated key
keeps, case-insensitive keys, inline comments after whitespace, indented continuation lines, which words are
booleans, line order of the lint report, first-appearance order of the dump, the error for a missing key). Texts
and decisions are in ``family.yaml``, the golden in ``golden/`` and ``blocks/``; the samplers are here.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["ConfigChecker"]

ACTIONS = {"feature1_dump": "dump", "feature2_lint": "lint", "feature3_get": "get", "feature4_types": "types",
           "feature5_env": "env"}  # fmt: skip
_BAD_LINES = (
    "enable debug", "[bad name]", "[]", "[{s}", "[a.b]", "2fast = x", "my key = on", "= {w}", "k.v = 1", "{w}",
)  # fmt: skip


@dataclass
class _Key:
    """One key line as written (and the section it is in)."""

    section: str
    key: str
    value: str
    telling: bool = False


@dataclass
class _File:
    """A settings file in the making: its lines and the keys it defines."""

    lines: list[str] = field(default_factory=list)
    keys: list[_Key] = field(default_factory=list)


#: The conventions a messy file may use, each drawn per file with its chance (some of them are fatal under some
#: decisions, so that no file uses all of them).
QUIRKS = {"continuation": 0.25, "header_comment": 0.2, "duplicate": 0.25, "value_comment": 0.6, "capitals": 0.5,
          "spacing": 0.7, "comment_lines": 0.5}  # fmt: skip


class _Writer:
    """Writes settings files from the skin's pools and ``rng`` only; messy files use some :data:`QUIRKS`."""

    def __init__(self, plan: Plan, rng: random.Random, messy: bool, every_quirk: bool = False) -> None:
        self.pools, self.rng, self.messy = plan.skin.pools, rng, messy
        chances = {q: 0.85 for q in QUIRKS} if every_quirk else QUIRKS
        self.quirks = {q for q, chance in chances.items() if messy and rng.random() < chance}

    def uses(self, quirk: str, chance: float) -> bool:
        return quirk in self.quirks and self.rng.random() < chance

    def pick(self, pool: str) -> str:
        return str(self.rng.choice(self.pools[pool]))

    def value(self) -> str:
        rng, w = self.rng, self.pick
        if not self.messy:
            return rng.choice((w("words"), w("hosts"), str(rng.randint(2, 65535)), rng.choice(("true", "false"))))
        return rng.choice((
            w("words"), w("hosts"), str(rng.randint(1024, 65535)), str(rng.randint(2, 64)),
            "0" * rng.randint(1, 2) + str(rng.randint(1, 999)), rng.choice(("+5", "-0", "-12", "+007", "0", "1")),
            rng.choice(("yes", "no", "on", "off", "True", "NO", "1", "0", "false", "Off")),
            ", ".join(rng.sample(self.pools["words"], 2)), f"{w('words')},{w('words')},",
            "[" + ", ".join(rng.sample(self.pools["words"], rng.randint(1, 3))) + "]",
            f"https://{w('hosts')}/#{w('words')}", f"{w('words')} {w('words')}", "", f"it's {w('words')}", "2.5",
        ))  # fmt: skip

    def key_line(self, key: str, value: str) -> str:
        rng = self.rng
        line = f"{key} = {value}"
        if self.uses("spacing", 0.5):
            line = rng.choice(("{k}={v}", "{k} =  {v}", "{k}\t= {v}", "{k}= {v}")).format(k=key, v=value)
        if self.uses("value_comment", 0.35):
            line += rng.choice(("  # {w}", " ; {w}", "\t# was {w}", " #{w}")).format(w=self.pick("words"))
        return line

    def written(self, key: str) -> str:
        if self.uses("capitals", 0.35):
            return self.rng.choice((key.upper(), key.title(), key[:1].upper() + key[1:]))
        return key

    def header(self, name: str) -> str:
        if self.uses("header_comment", 0.6):
            return self.rng.choice(("[ {s} ]", "[{s}]  # {w}", "[{s}] ;{w}", "[{s}]\t; {w}")).format(
                s=name, w=self.pick("words")
            )
        return f"[{name}]"

    def section(self, out: _File, name: str, count: int, ordered: bool) -> None:
        rng = self.rng
        out.lines.append(self.header(name))
        keys = rng.sample(list(self.pools["keys"]), count)
        for key in sorted(keys) if ordered else keys:
            if self.uses("comment_lines", 0.25):
                out.lines.append(rng.choice(("# {w}", "; {w}", "  # {w} notes", ""))
                                 .format(w=self.pick("words")))  # fmt: skip
            written, value = self.written(key), self.value()
            line = self.key_line(written, value)
            out.lines.append(line)
            telling = written != key or line != f"{key} = {value}" or not _plain(value)
            out.keys.append(_Key(name, written, value, telling))
            if self.uses("continuation", 0.3):
                out.lines += [rng.choice(("    ", "\t", "  ")) + self.pick("words") for _ in range(rng.randint(1, 2))]
                out.keys[-1].telling = True
        own = [k for k in out.keys if k.section == name]
        if own and self.uses("duplicate", 0.35):
            again, value = rng.choice(own), self.value()
            out.lines.append(self.key_line(self.written(again.key.lower()), value))
            again.telling = True
            out.keys.append(_Key(name, again.key, value, True))

    def file(self, sections: int, keys: tuple[int, int], ordered: bool) -> _File:
        rng, out = self.rng, _File()
        names = rng.sample(list(self.pools["sections"]), sections)
        for name in sorted(names) if ordered else names:
            self.section(out, name, rng.randint(*keys), ordered)
            if self.messy and rng.random() < 0.3:
                out.lines.append("")
        if self.uses("duplicate", 0.3) and names:
            again = rng.choice(names)
            out.lines.append(f"[{again}]")
            key, value = self.pick("keys"), self.value()
            out.lines.append(self.key_line(self.written(key), value))
            out.keys.append(_Key(again, key, value))
        return out

    def break_lines(self, out: _File, count: int) -> None:
        rng = self.rng
        for _ in range(count):
            line = rng.choice(_BAD_LINES).format(s=self.pick("sections"), w=self.pick("words"))
            if rng.random() < 0.2:
                out.lines.insert(0, self.key_line(self.pick("keys"), self.value()))
            elif rng.random() < 0.2:
                out.lines[len(out.lines) :] = ["", "  " + self.pick("words")]
            else:
                out.lines.insert(rng.randint(min(1, len(out.lines)), len(out.lines)), line)

    def text(self, out: _File) -> str:
        newline = "\r\n" if self.messy and self.rng.random() < 0.12 else "\n"
        return newline.join(out.lines) + (newline if self.rng.random() < 0.85 else "")


class ConfigChecker(Family):
    """Settings-file checks; texts and decisions in ``family.yaml``."""

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        writer = _Writer(plan, rng, messy=kind != "public", every_quirk=feature == "feature2_lint")
        if kind == "boundary" and rng.random() < 0.4:
            out = _boundary(writer)
        elif kind == "public" and feature == "feature5_env" and rng.random() < 0.5:
            out = _File([f"[{name}]" for name in sorted(rng.sample(list(writer.pools["sections"]), 2))])
        elif kind == "public":
            out = writer.file(rng.randint(1, 2), (1, 3), ordered=True)
        else:
            out = writer.file(rng.randint(2, 4), (2, 5), ordered=False)
        if feature == "feature2_lint" and kind != "public" and rng.random() < 0.85:
            writer.break_lines(out, rng.randint(1, 4))
        elif feature == "feature2_lint" and kind == "public" and rng.random() < 0.4:
            at = rng.randint(min(1, len(out.lines)), len(out.lines))
            out.lines.insert(at, rng.choice(("enable debug", "[bad name]", "2fast = x")))
        elif kind == "malformed" and rng.random() < 0.3:
            writer.break_lines(out, 1)
        data: dict[str, Any] = {
            "action": ACTIONS[feature],
            "file": f"{writer.pick('files')}-{rng.randint(1, 99)}.ini",
            "text": writer.text(out),
        }
        _options(writer, data, out, kind)
        if kind == "malformed" and rng.random() < 0.6:
            _malform(writer, data)
        return data


def _plain(value: str) -> bool:
    """Whether every decision reads ``value`` the same way (a word, a host, true, false or a plain number)."""
    low = value.lower()
    if low in ("true", "false"):
        return True
    if low in ("yes", "no", "on", "off", "1", "0") or not value or any(ch in value for ch in ", [") or "'" in value:
        return False
    digits = value.lstrip("+-")
    return not digits.isdigit() or (digits == value and not value.startswith("0"))


def _kind_of(value: str) -> str:
    """The ``as`` that best shows how ``value`` is read."""
    if value.lower() in ("yes", "no", "on", "off", "1", "0", "true", "false"):
        return "bool"
    if value.lstrip("+-").isdigit():
        return "int"
    return "list" if "," in value or value.startswith("[") else "str"


def _boundary(writer: _Writer) -> _File:
    rng, out = writer.rng, _File()
    name, key = writer.pick("sections"), writer.pick("keys")
    choice = rng.randrange(6)
    if choice == 0:
        out.lines = rng.choice(([], ["# only a comment"], ["", "; nothing", ""], [f"[{name}]"]))
    elif choice == 1:
        out.lines = [f"[{name}]", f"{key} =", f"{key.upper()} = b = c", f"{key}_2 = ;x", f"{key}_3 =;x"]
    elif choice == 2:
        out.lines = [
            f"[{name}]",
            f"{key} = -0",
            f"{key}-b = +007",
            f"{key}-c = 0,",
            "[" + name.title() + "]",
            "a = [,]",
        ]
    elif choice == 3:
        out.lines = [f"[{name}]", f"{key} = 1", f"[{name}]", f"{key.upper()} = 2", f"  {key}_more = 3"]
    elif choice == 4:
        out.lines = [f"[{name}]", f"{key} = a,", "  b", "", f"  c # {writer.pick('words')}"]
    else:
        out.lines = [f"[{name}] # x", f"{key} = v ; c", f"{key}2 = {writer.pick('hosts')}#top"]
    for line in out.lines:
        if "=" in line and not line.startswith(" "):
            raw, value = line.split("=", 1)
            out.keys.append(_Key(name, raw.strip(), value.strip()))
    return out


def _options(writer: _Writer, data: dict[str, Any], out: _File, kind: SampleKind) -> None:
    rng = writer.rng
    if data["action"] == "env" and rng.random() < 0.6:
        data["prefix"] = writer.pick("prefixes")
    if data["action"] != "get":
        return
    telling = [k for k in out.keys if k.telling and kind != "public"]
    keys = telling if telling and rng.random() < 0.8 else out.keys
    target = rng.choice(keys) if keys else _Key(writer.pick("sections"), writer.pick("keys"), "")
    roll = 0.0 if kind == "public" else rng.random()
    if roll < 0.8:
        key = (
            target.key
            if kind == "public" or rng.random() < 0.6
            else rng.choice((target.key.upper(), target.key.lower()))
        )
        data["key"] = f"{target.section}.{key}"
    elif roll < 0.9:
        data["key"] = f"{target.section}.{writer.pick('keys')}_x"
    else:
        data["key"] = f"{writer.pick('sections').title()}.{target.key}"
    if kind != "public" and rng.random() < 0.7:
        data["as"] = rng.choice(("str", "int", "bool", "list", _kind_of(target.value), _kind_of(target.value)))
    if kind != "public" and rng.random() < 0.2:
        data["default"] = rng.choice((writer.pick("words"), "", "0"))


def _malform(writer: _Writer, data: dict[str, Any]) -> None:
    rng = writer.rng
    choice = rng.randrange(6)
    if choice == 0:
        data["action"] = rng.choice(("show", "DUMP", "check", None, data["action"].title()))
    elif choice == 1:
        lines = data["text"].splitlines()
        data["text"] = lines if rng.random() < 0.7 else {"lines": lines}
    elif choice == 2 and data["action"] == "get":
        data.update(rng.choice(({"key": None}, {"as": "float"}, {"as": "String"}, {"default": 0}, {"key": "port"})))
    elif choice == 3 and data["action"] == "env":
        data["prefix"] = rng.choice(("9x", "my-app", "", 5))
    elif choice == 4:
        data[rng.choice(("body", "contents", "ini"))] = data.pop("text")
