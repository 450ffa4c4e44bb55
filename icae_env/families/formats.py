"""Output formats a task's level lets an agent know: templates, level-visible channels, unreachable words.

A family declares every kind of line its goldens print as a :class:`~icae_env.families.spec.Template`. For a
generated task, certification checks that

* every output line of every case (public and hidden) matches exactly one template;
* every template the task's cases print is **stated at every level** by a level-visible channel: the level's PRD,
  a record the level's User Agent answers from (decision, literal, format and public-case records), a context
  pointer or the API signature contains its ``shown`` text verbatim, or a public case prints a line of it;
* each level states a superset of what the level below states (L1 ⊆ L2 ⊆ L3);
* no hidden case holds a word (a run of three or more letters) that no level-visible channel contains, after
  removing the words of the case's own input (:func:`unreachable_share`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from icae_env.families.spec import Family, Plan, Template
from icae_env.tasks.models import Task

__all__ = [
    "LEVELS",
    "Channels",
    "Formats",
    "channels",
    "declared_format_problems",
    "public_lines",
    "template_problems",
    "unreachable_share",
    "unstated",
    "used_templates",
]

LEVELS = ("L1", "L2", "L3")
_WORD = re.compile(r"[A-Za-z]{3,}")
_PLACEHOLDER = re.compile(r"<([A-Za-z_][A-Za-z0-9_]*)>")


@dataclass(frozen=True)
class Channels:
    """What an agent at one level can read or be told.

    Attributes:
        texts: The PRD, every record's answer, the context pointers and the API signature.
        public_lines: Every line the public cases print.
    """

    texts: tuple[str, ...]
    public_lines: tuple[str, ...]

    def words(self) -> frozenset[str]:
        """Every word (lower case) of the channels."""
        return frozenset(w.lower() for text in (*self.texts, *self.public_lines) for w in _WORD.findall(text))


def public_lines(task: Task) -> tuple[str, ...]:
    """Every line the public cases of ``task`` print."""
    return tuple(line for f in task.tests.public for c in f.cases for line in c.expected_text.splitlines())


def channels(task: Task, level: str) -> Channels:
    """The level-visible channels of ``task`` at ``level``."""
    data = task.user_agent_data(level)
    texts = (
        task.prd(level),
        data.golden_api_signature,
        *(record.oracle_response for record in data.hidden_constraints),
        *(f"{p.vague_reference} {p.actual_meaning}" for p in data.context_pointers),
    )
    return Channels(texts, public_lines(task))


@lru_cache(maxsize=4096)
def _compile(line: str, placeholders: tuple[tuple[str, str], ...]) -> re.Pattern[str]:
    patterns = dict(placeholders)
    parts, last = [], 0
    for match in _PLACEHOLDER.finditer(line):
        parts.append(re.escape(line[last : match.start()]))
        parts.append(f"(?:{patterns.get(match.group(1), '.*?')})")
        last = match.end()
    parts.append(re.escape(line[last:]))
    return re.compile("".join(parts), re.DOTALL)


@dataclass(frozen=True)
class Formats:
    """A task's output templates with its skin's words filled in, and the family's placeholder patterns.

    Attributes:
        templates: Every kind of line the task's golden can print.
        placeholders: Placeholder name -> regular expression (sorted pairs; others match any text).
    """

    templates: tuple[Template, ...]
    placeholders: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, family: Family, plan: Plan) -> Formats:
        """The formats of ``plan``'s task."""
        templates = tuple(Template(plan.text(t.line), plan.text(t.shown)) for t in family.templates)
        return cls(templates, tuple(sorted(family.placeholders.items())))

    @classmethod
    def from_meta(cls, meta: Mapping[str, Any]) -> Formats | None:
        """The formats a task pack declares in its ``meta`` (``templates``: strings or ``{line, shown}``), if any."""
        raw = meta.get("templates")
        if not raw:
            return None
        templates = tuple(
            Template(t, t) if isinstance(t, str) else Template(t["line"], t.get("shown") or t["line"]) for t in raw
        )
        return cls(templates, tuple(sorted(dict(meta.get("placeholders") or {}).items())))

    def to_meta(self) -> dict[str, Any]:
        """The ``meta`` entries that declare these formats in a task pack."""
        templates = [t.line if t.shown == t.line else {"line": t.line, "shown": t.shown} for t in self.templates]
        return {"templates": templates, "placeholders": dict(self.placeholders)}

    def matching(self, line: str) -> list[int]:
        """Indices of the templates ``line`` matches."""
        return [i for i, t in enumerate(self.templates) if _compile(t.line, self.placeholders).fullmatch(line)]

    def stated(self, index: int, seen: Channels) -> bool:
        """Whether ``seen`` states template ``index``."""
        template = self.templates[index]
        if any(template.shown in text for text in seen.texts):
            return True
        return any(_compile(template.line, self.placeholders).fullmatch(line) for line in seen.public_lines)


def _all_lines(task: Task) -> list[str]:
    return [
        line
        for tier in ("public", "native", "enhanced")
        for f in task.tests.tier(tier)
        for c in f.cases
        for line in c.expected_text.splitlines()
    ]


def used_templates(formats: Formats, task: Task) -> set[int]:
    """Indices of the templates some output line of ``task`` matches."""
    return {i for line in dict.fromkeys(_all_lines(task)) for i in formats.matching(line)}


def unstated(formats: Formats, task: Task, seen: Channels) -> list[Template]:
    """The templates ``task`` prints that ``seen`` does not state."""
    return [formats.templates[i] for i in sorted(used_templates(formats, task)) if not formats.stated(i, seen)]


def template_problems(formats: Formats, task: Task, levels: Sequence[str] = LEVELS) -> list[str]:
    """What breaks the template rules of the module docstring (one line each; empty: none)."""
    if not formats.templates:
        return ["templates: no output templates are declared"]
    problems: list[str] = []
    used: set[int] = set()
    for line in dict.fromkeys(_all_lines(task)):
        found = formats.matching(line)
        if len(found) != 1:
            lines = [formats.templates[i].line for i in found]
            what = f"{len(found)} templates {lines}" if found else "no template"
            problems.append(f"templates: output line {line!r} matches {what}")
        used.update(found)
    previous: set[int] | None = None
    for level in levels:
        seen = channels(task, level)
        stated = {i for i in used if formats.stated(i, seen)}
        for i in sorted(used - stated):
            problems.append(f"templates: {formats.templates[i].shown!r} is not stated by any {level} channel")
        if previous is not None and not previous <= stated:
            problems.append(f"templates: {level} states less than the level below it")
        previous = stated
    return problems


def declared_format_problems(task: Task) -> list[str]:
    """The format checks of any task pack that declares templates in its ``meta`` (empty when it declares none)."""
    formats = Formats.from_meta(task.meta)
    if formats is None:
        return []
    problems = template_problems(formats, task)
    for level in LEVELS:
        share, words = unreachable_share(task, level)
        if share:
            problems.append(f"formats: {share:.0%} of hidden cases print words no {level} channel has: {words}")
    return problems


def _strings(data: Any) -> list[str]:
    if isinstance(data, dict):
        return [*map(str, data), *(s for v in data.values() for s in _strings(v))]
    if isinstance(data, list):
        return [s for v in data for s in _strings(v)]
    return [data if isinstance(data, str) else json.dumps(data)]


def _input_words(data: Any) -> frozenset[str]:
    return frozenset(w.lower() for text in _strings(data) for w in _WORD.findall(text))


def unreachable_share(task: Task, level: str) -> tuple[float, list[str]]:
    """Share of hidden cases holding a word no ``level`` channel contains, and the first few such words.

    A word is a run of three or more letters; the words of the case's own input do not count.
    """
    known = channels(task, level).words()
    cases = [c for tier in ("native", "enhanced") for f in task.tests.tier(tier) for c in f.cases]
    missing: list[str] = []
    bad = 0
    for case in cases:
        words = {w.lower() for w in _WORD.findall(case.expected_text)} - _input_words(case.input) - known
        bad += bool(words)
        missing.extend(sorted(words)[:3])
    return (bad / len(cases) if cases else 0.0), sorted(set(missing))[:10]
