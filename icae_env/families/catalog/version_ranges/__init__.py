"""``version-ranges``: a semantic-version range matcher (sort, match, resolve, expand, compare), from ``semver-range``.

Texts, decisions and skins are in ``family.yaml``; the Python golden and
the JavaScript one (the same program for Node) in ``golden/`` and ``blocks/``. The samplers draw versions around
the numbers a range names, so that every house rule (prerelease matching, caret on 0.x, tilde, hyphen ends, the
prefix, the display, invalid entries, listing order, resolution) shows on typical inputs.
"""

from __future__ import annotations

import random
import re
from typing import Any

from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["VersionRanges"]

OPS = {"feature1_sort": "sort", "feature2_match": "match", "feature3_resolve": "resolve", "feature4_expand": "expand",
       "feature5_compare": "compare"}  # fmt: skip
Triple = tuple[int, int, int]
_TAGS = ("alpha", "alpha.1", "beta", "beta.2", "beta.11", "rc.1", "rc.2", "rc.10", "dev.3", "preview")
_OPERATOR = re.compile(r"(<=|>=|<|>|\^|~)(?=[0-9vV])")
_UNKNOWN_OPS = ("satisfies", "max_satisfying", "Sort", "list", "check", "range")
_BAD_RANGES = ("{M}.x.{p}", "~>{M}.{m}", "=>{M}.{m}.{p}", "{M}.{m}.{p} - ", "|| {M}.x", "{M}.x ||", "{M}.{m}.{p} || ^",
               "{M}.{m}.{p} - {n}.0.0 - {n}.1.0", ">{M}.0.0 - {n}.0.0", "{M}.{m}-rc.1", "{M}.{m}.{p}.{n}")  # fmt: skip


def _text(triple: Triple) -> str:
    return ".".join(map(str, triple))


def _anchor(rng: random.Random, zero: float = 0.3) -> Triple:
    major = 0 if rng.random() < zero else rng.choice((1, 1, 2, 3, 4, 5, 7, 10, 12))
    return major, rng.randint(0, 12), rng.randint(0, 15)


def _near(rng: random.Random, anchor: Triple) -> Triple:
    """A version close to ``anchor``, often just across one of the bounds a range over it may have."""
    major, minor, patch = anchor
    return rng.choice((
        anchor, anchor, (major, minor, patch + rng.randint(1, 4)), (major, minor + 1, 0), (major, minor + 1, patch),
        (major, minor + rng.randint(1, 4), rng.randint(0, 9)), (major + 1, 0, 0), (major + 1, rng.randint(0, 3), 1),
        (max(major - 1, 0), rng.randint(0, 9), rng.randint(0, 9)), (major, max(minor - 1, 0), rng.randint(0, 9)),
        (major, 0, rng.randint(0, 5)),
    ))  # fmt: skip


def _decorate(rng: random.Random, triple: Triple, rate: float = 1.0, prefix: float | None = None) -> str:
    """A version text for ``triple``, sometimes with a prerelease tag, build metadata or (``prefix``) a v / V prefix."""
    prefix = rate if prefix is None else prefix
    text = _text(triple)
    if rng.random() < 0.3 * rate:
        text += "-" + rng.choice(_TAGS)
    if rng.random() < 0.2 * rate:
        text += rng.choice(("+build.", "+ci.", "+sha.")) + str(rng.randint(1, 9999))
    roll = rng.random()
    return ("v" if roll < 0.2 * prefix else "V" if roll < 0.28 * prefix else "") + text


def _junk(rng: random.Random, anchor: Triple) -> str:
    """A list entry that is not a valid version (made of the task's own numbers)."""
    major, minor, patch = anchor
    return rng.choice((
        f"{major}.{minor}", f"{major}.0{minor + 1}.{patch}", f"{major}.{minor}.{patch}.{rng.randint(1, 9)}",
        f"{major}.{minor}.x", f"{major}.{minor}.{patch}-", f"release-{major}.{minor}", "latest", "next",
        f"{major}.{minor}.{patch} ", f"vv{major}.{minor}.{patch}", f"{major}.{minor}.{patch}-rc.0{minor + 1}",
    ))  # fmt: skip


def _spaced(rng: random.Random, text: str) -> str:
    return _OPERATOR.sub(lambda m: m.group(1) + rng.choice((" ", " ", "  ", "\t")), text, count=1)


#: Alternative kinds (see :func:`_alternative`), the ones that carry the rarer house rules more often.
_KINDS = (0, 0, 9, 9, 1, 2, 2, 2, 3, 3, 4, 5, 6, 7, 8)


def _alternative(rng: random.Random, kind: int) -> tuple[str, list[Triple]]:
    """One comparator set of ``kind`` and the versions it is about (the witnesses are drawn near them)."""
    major, minor, patch = _anchor(rng, zero=0.0)
    if kind == 0:  # caret on 0.x
        minor = max(minor, 1)
        text = rng.choice((f"^0.{minor}.{patch}", f"^0.{minor}.{patch}", f"^0.{minor}", f"^0.{minor}.x"))
        return text, [(0, minor, patch)]
    if kind == 9:  # caret on 0.0.x
        return rng.choice((f"^0.0.{patch}", f"^0.0.{patch}", f"^0.0.{patch}", "^0.0")), [(0, 0, patch)]
    if kind == 1:
        return rng.choice((f"^{major}.{minor}.{patch}", f"^{major}.{minor}")), [(major, minor, patch)]
    if kind == 2:
        text = rng.choice(
            (f"~{major}.{minor}", f"~{major}.{minor}", f"~{major}.{minor}.x", f"~{major}.{minor}.{patch}")
        )
        return text, [(major, minor, patch)]
    end = (major + rng.randint(0, 2), minor + rng.randint(0, 3), rng.randint(0, 9))
    if kind == 3:  # a hyphen span with a short right end
        tail = rng.choice((f"{end[0]}.{end[1]}", f"{end[0]}.{end[1]}", f"{end[0]}", f"{end[0]}.x"))
        return f"{major}.{minor}.{patch} - {tail}", [(major, minor, patch), (end[0], end[1], 0)]
    if kind == 4:
        return rng.choice((f"{major}.x", f"{major}.{minor}.x", f"{major}.{minor}", f"={major}")), [
            (major, minor, patch)
        ]
    if kind == 5:
        text = rng.choice((f">={major}.{minor}.{patch} <{major + 1}.0.0", f">{major}.{minor}", f"<={major}.{minor}"))
        return text, [(major, minor, patch)]
    if kind == 6:  # names a prerelease
        return rng.choice((">=", "^", "~")) + f"{major}.{minor}.{patch}-" + rng.choice(_TAGS[:6]), [
            (major, minor, patch)
        ]
    if kind == 7:
        return rng.choice(("^v", "~V", ">=v")) + f"{major}.{minor}.{patch}", [(major, minor, patch)]
    return f"{major}.{minor}.{patch} - {_text(end)}", [(major, minor, patch), end]


def _range(rng: random.Random, count: int, spaced: float = 0.2, named: bool = False) -> tuple[str, list[Triple]]:
    """A range of ``count`` alternatives and their anchors (``named``: the first names a prerelease of anchor 0)."""
    parts, anchors = [], []
    for i in range(count):
        text, near = _alternative(rng, 6 if named and i == 0 else rng.choice(_KINDS))
        parts.append(text)
        anchors += near
    text = rng.choice((" || ", "||", " ||\t")).join(parts)
    return (_spaced(rng, text) if rng.random() < spaced else text), anchors


class VersionRanges(Family):
    """A semantic-version range matcher; texts and decisions in ``family.yaml``."""

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        data: dict[str, Any] = {"op": OPS[feature], "package": rng.choice(plan.skin.pools["names"])}
        fields = getattr(self, f"_{OPS[feature]}")(rng, kind)
        data.update(fields)
        if kind == "malformed":
            return self._break(data, rng)
        return data

    # --- per-op fields --------------------------------------------------------------------------------------

    @staticmethod
    def _versions(
        rng: random.Random, anchors: list[Triple], count: int, junk: float = 0.5, named: bool = False
    ) -> list[str]:
        """Versions around ``anchors`` (``named``: one is a prerelease of the first anchor, as its range names)."""
        rate = rng.choice((0.3, 0.6, 1.0, 1.0, 1.0))
        prefix = rng.choice(
            (0.0, 0.0, 0.6, 1.0, 1.0)
        )  # many lists are valid under every rule, so strict ones still show
        junk = junk if rng.random() < 0.6 else 0.0  # and many have no junk, which a failing request would hide
        texts = [_decorate(rng, _near(rng, rng.choice(anchors)), rate, prefix) for _ in range(count)]
        if named or rng.random() < 0.3:  # a prerelease of a version the range names (the prerelease rules differ)
            anchor = anchors[0] if named else rng.choice(anchors)
            texts.insert(rng.randrange(len(texts) + 1), f"{_text(anchor)}-" + rng.choice(_TAGS[5:8]))
        if rng.random() < 0.6:  # mirrors list some versions twice, written the same way or not
            twin = rng.choice(texts)
            if twin[:1] in ("v", "V") and rng.random() < 0.5:
                other = twin[1:]
            else:  # the same precedence, other build metadata
                other = twin.split("+")[0] if "+" in twin else f"{twin}+mirror.{rng.randint(1, 9)}"
            texts.insert(rng.randrange(len(texts) + 1), rng.choice((twin, other)))
        for _ in range(rng.choice((1, 1, 2)) if rng.random() < junk else 0):
            texts.insert(rng.randrange(len(texts) + 1), _junk(rng, rng.choice(anchors)))
        return texts

    def _sort(self, rng: random.Random, kind: SampleKind) -> dict[str, Any]:
        anchor = _anchor(rng)
        if kind == "public":
            return {"versions": [_text(_near(rng, anchor))]}
        if kind == "boundary":
            choice = rng.randrange(4)
            if choice == 0:  # nothing valid to list (the task's own numbers, written wrong)
                junk = [f"{anchor[0]}.{anchor[1]}", *(_junk(rng, anchor) for _ in range(rng.randint(1, 2)))]
                rng.shuffle(junk)
                return {"versions": junk}
            if choice == 1:
                same = _text(anchor)
                return {
                    "versions": [f"{same}+b.{rng.randint(1, 99)}", f"v{same}", same, f"{same}+a.{rng.randint(1, 9)}"]
                }
            if choice == 2:
                big = f"{anchor[0]}.{anchor[1]}.{rng.randint(10**18, 10**21)}"
                return {"versions": [big, _text(anchor), f"{big}-rc.1", f"v{big}"]}
            base = _text(anchor)
            return {"versions": [f"{base}-{tag}" for tag in rng.sample(_TAGS, 5)] + [base]}
        return {"versions": self._versions(rng, [anchor], rng.randint(6, 10))}

    def _match(self, rng: random.Random, kind: SampleKind) -> dict[str, Any]:
        anchors = [_anchor(rng) for _ in range(rng.randint(1, 3))]
        if kind == "public":
            major, minor, patch = anchors[0][0] + 1, anchors[0][1], anchors[0][2]
            text = rng.choice((f"{major}.{minor}.x", f"^{major}.{minor}.{patch}", f"~{major}.{minor}.{patch}",
                               f">={major}.{minor}.{patch} <{major + 1}.0.0"))  # fmt: skip
            inside = f"{major}.{minor}.{patch + rng.randint(0, 3)}"
            outside = [f"{major + rng.randint(2, 4)}.{rng.randint(0, 9)}.0", f"{major - 1}.{rng.randint(0, 9)}.9"]
            versions = [inside, *rng.sample(outside, rng.randint(1, 2))]
            rng.shuffle(versions)
            return {"range": text, "versions": versions}
        if kind == "boundary":
            text = rng.choice(("*", "", "x.x.x", "<*", ">=*", "  ", f"{anchors[0][0]}.x||{anchors[0][0] + 1}.x"))
            return {"range": text, "versions": self._versions(rng, anchors, rng.randint(3, 6), junk=0.3)}
        named = rng.random() < 0.3
        text, anchors = _range(rng, rng.randint(1, 3), named=named)
        return {"range": text, "versions": self._versions(rng, anchors, rng.randint(6, 10), named=named)}

    def _resolve(self, rng: random.Random, kind: SampleKind) -> dict[str, Any]:
        if kind == "public":
            majors = rng.sample(range(1, 20, 3), rng.randint(1, 2))
            ranges, versions = [], []
            for major in majors:
                minor, patch = rng.randint(0, 9), rng.randint(0, 9)
                ranges.append(rng.choice((f"^{major}.{minor}.{patch}", f"{major}.x", f"~{major}.{minor}.{patch}")))
                versions.append(f"{major}.{minor}.{patch + rng.randint(0, 4)}")
            versions.append(f"{max(majors) + 2}.{rng.randint(0, 9)}.{rng.randint(0, 9)}")
            rng.shuffle(versions)
            return {"ranges": ranges, "versions": versions}
        named = rng.random() < 0.3
        drawn = [_range(rng, 1, spaced=0.0 if kind == "boundary" else 0.15, named=named and i == 0) for i in range(3)]
        ranges, anchors = [text for text, _ in drawn], [a for _, near in drawn for a in near]
        if kind == "boundary":
            return {"ranges": ranges[:2], "versions": [] if rng.random() < 0.5 else [_decorate(rng, anchors[0])]}
        versions = self._versions(rng, anchors, rng.randint(7, 11), named=named)
        if rng.random() < 0.6:
            ranges.insert(rng.randrange(len(ranges) + 1), f"^{max(a[0] for a in anchors) + rng.randint(3, 9)}.0.0")
        return {"ranges": ranges, "versions": versions}

    def _expand(self, rng: random.Random, kind: SampleKind) -> dict[str, Any]:
        anchor = _anchor(rng)
        major, minor, patch = anchor[0] + 1, anchor[1], anchor[2]
        if kind == "public":
            text = rng.choice((f"^{major}.{minor}.{patch}", f"~{major}.{minor}.{patch}", f"{major}.x",
                               f"{major}.{minor}.{patch} - {major + 1}.{minor}.{patch}",
                               f">={major}.{minor}.{patch} <{major + 2}.0.0"))  # fmt: skip
            return {"range": text}
        if kind == "boundary":
            text = rng.choice(("*", "<*", "^0.0.0", "^0.0", "^0", f"* - {major}.{minor}", f"{major}.{minor}.0 - *",
                               f"^0.0.{patch}", f"~{major}.{minor}.x", f"^0.{minor}.x", f"v{major}.{minor}.{patch}",
                               f"~{major}.{minor}.{patch}-rc.1", f"<{major}", f"* - {major}",
                               f"> {major}.{minor}"))  # fmt: skip
            other = _alternative(rng, rng.choice((1, 2, 3, 5, 8)))[0]  # drawn, so that no two tasks share the case
            return {"range": rng.choice((f"{text} || {other}", f"{other} || {text}"))}
        return {"range": _range(rng, rng.randint(2, 3), spaced=0.3)[0]}

    def _compare(self, rng: random.Random, kind: SampleKind) -> dict[str, Any]:
        anchor = _anchor(rng)
        if kind == "public":
            pairs = [[_text(_near(rng, anchor)), _text(_near(rng, anchor))] for _ in range(rng.randint(1, 2))]
            return {"pairs": pairs}
        if kind == "boundary":
            same, build = _text(anchor), rng.randint(1, 9999)
            pairs = [[f"{same}+a.{build}", f"v{same}+b.{rng.randint(1, 9999)}"], [f"{same}-rc.1", same],
                     [f"{same}-alpha", f"{same}-alpha.1"], [f"{same}-beta.11", f"{same}-beta.2"],
                     [_decorate(rng, _near(rng, anchor)), _decorate(rng, _near(rng, anchor))]]  # fmt: skip
            rng.shuffle(pairs)
            return {"pairs": pairs}
        texts = self._versions(rng, [anchor], 2 * rng.randint(3, 6), junk=0.6)
        if len(texts) % 2:
            texts.append(_decorate(rng, _near(rng, anchor)))
        return {"pairs": [texts[i : i + 2] for i in range(0, len(texts), 2)]}

    # --- malformed requests -----------------------------------------------------------------------------------

    @staticmethod
    def _break(data: dict[str, Any], rng: random.Random) -> Any:
        anchor = _anchor(rng)
        major, minor, patch = anchor
        choice = rng.choice((0, 1, 2, 3, 4, 4, 5, 6, 6, 6))
        if choice == 0:
            return [data["package"], *(_text(_near(rng, anchor)) for _ in range(3))]
        if choice == 1:
            return {k: v for k, v in data.items() if k != "op"} | {"operation": data["op"]}
        if choice == 2:
            return data | {"op": rng.choice(_UNKNOWN_OPS)}
        if choice == 3:
            return {k: v for k, v in data.items() if k != "package"} | {"name": data["package"]}
        if choice == 4 and "range" in data:  # one bad alternative makes the whole range invalid
            bad = rng.choice(_BAD_RANGES).format(M=major, m=minor, p=patch, n=major + 1)
            return data | {"range": f"{_alternative(rng, rng.choice((1, 2, 5, 8)))[0]} || {bad}"}
        if choice == 4 and "ranges" in data:
            bad = rng.choice(_BAD_RANGES).format(M=major, m=minor, p=patch, n=major + 1)
            return data | {"ranges": [*data["ranges"], bad]}
        list_field = next((k for k in ("versions", "pairs") if k in data), None)
        if list_field is None:
            return data | {
                "range": [data["range"], _text(anchor)] if choice == 5 else f"{data['range']} || ^V{_text(anchor)}"
            }
        if choice == 5:
            return data | {list_field: ", ".join(_text(_near(rng, anchor)) for _ in range(3))}
        junk = [_junk(rng, anchor) for _ in range(rng.randint(2, 3))]
        if list_field == "pairs":
            return data | {"pairs": [*data["pairs"], junk[:2]]}
        return data | {"versions": [*junk, *data["versions"]]}
