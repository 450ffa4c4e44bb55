"""A family's texts and decisions live in a YAML file beside its module, loaded strictly.

The file (``family.yaml`` in the family's folder) holds ``name``, ``version`` (bumped whenever a task of the
family changes), ``golden`` (per language, the path of its composed rules module), ``title``, ``languages``,
``held_out``, ``api_signature``, ``intro``, the lists ``features``, ``decisions`` (each with its ``values``),
``skins``, ``templates`` (strings, or ``{line, shown}``), ``formats`` and the mapping ``placeholders``, in the shapes of
:class:`~icae_env.families.spec.Feature`, :class:`~icae_env.families.spec.Decision`,
:class:`~icae_env.families.spec.Value`, :class:`~icae_env.families.spec.Skin`,
:class:`~icae_env.families.spec.Template` and :class:`~icae_env.families.spec.FormatRecord`. Texts may use the skin's
words as ``{word}`` placeholders (write a literal brace as ``{{``). An error names the file and the field.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from icae_env.families.spec import Decision, Feature, FormatRecord, Skin, Template, Value
from icae_env.tasks.pack import read_yaml_mapping, validate_model

__all__ = ["FamilySpec", "load_family_spec"]

MIN_PHRASES = 8


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class _Value(_Strict):
    key: str = Field(min_length=1)
    response: str = Field(min_length=1)
    ground: str = Field(min_length=1)
    tells: tuple[str, ...] = Field(min_length=1)
    literal: str | None = None


class _Decision(_Strict):
    name: str = Field(min_length=1)
    naive: str
    clause: str = Field(min_length=1)
    features: tuple[str, ...] = Field(min_length=1)
    triggers: tuple[str, ...] = Field(min_length=MIN_PHRASES)
    paraphrases: tuple[str, ...] = Field(min_length=MIN_PHRASES)
    values: tuple[_Value, ...] = Field(min_length=2, max_length=4)

    @model_validator(mode="after")
    def _consistent(self) -> _Decision:
        keys = [v.key for v in self.values]
        if len(set(keys)) != len(keys) or self.naive not in keys:
            raise ValueError(f"values must have distinct keys and include the naive default {self.naive!r}")
        if set(self.triggers) & set(self.paraphrases):
            raise ValueError("a held-out paraphrase must not also be a stored trigger")
        for value in self.values:
            if value.literal is not None and value.literal not in value.ground:
                raise ValueError(f"value {value.key!r}: its literal {value.literal!r} is not in its ground sentence")
        return self


class _Feature(_Strict):
    stem: str = Field(pattern=r"^feature[0-9]+_[a-z0-9_]+$")
    title: str
    ground: str
    l1: str
    core: bool = False


class _Skin(_Strict):
    name: str
    words: dict[str, str]
    pools: dict[str, tuple[Any, ...]] = {}


class _Template(_Strict):
    line: str = Field(min_length=1)
    shown: str | None = None


class _Format(_Strict):
    key: str = Field(pattern=r"^[a-z][a-z0-9_]*$")
    response: str = Field(min_length=1)
    features: tuple[str, ...] = ()
    triggers: tuple[str, ...] = Field(min_length=MIN_PHRASES)
    paraphrases: tuple[str, ...] = Field(min_length=MIN_PHRASES)

    @model_validator(mode="after")
    def _apart(self) -> _Format:
        if set(self.triggers) & set(self.paraphrases):
            raise ValueError("a held-out paraphrase must not also be a stored trigger")
        return self


class _Golden(_Strict):
    rules: str = Field(min_length=1)


class FamilySpec(_Strict):
    """The contents of a family's YAML file."""

    name: str = Field(pattern=r"^[a-z][a-z0-9-]*$")
    version: int = Field(ge=1)
    golden: dict[str, _Golden] = Field(min_length=1)
    title: str
    languages: tuple[str, ...] = ("python",)
    held_out: bool = False
    api_signature: str = ""
    intro: str = Field(min_length=1)
    features: tuple[_Feature, ...] = Field(min_length=3)
    decisions: tuple[_Decision, ...] = Field(min_length=1)
    skins: tuple[_Skin, ...] = Field(min_length=1)
    templates: tuple[_Template | str, ...] = ()
    placeholders: dict[str, str] = {}
    formats: tuple[_Format, ...] = ()

    @model_validator(mode="after")
    def _references(self) -> FamilySpec:
        stems = {f.stem for f in self.features}
        for record in self.formats:
            if set(record.features) - stems:
                raise ValueError(f"format {record.key!r} names unknown features {sorted(set(record.features) - stems)}")
        if len({f.key for f in self.formats}) != len(self.formats):
            raise ValueError("format keys must be distinct")
        for name, pattern in self.placeholders.items():
            try:
                re.compile(pattern)
            except re.error as exc:
                raise ValueError(f"placeholder {name!r}: bad pattern {pattern!r} ({exc})") from None
        for decision in self.decisions:
            missing = set(decision.features) - stems
            if missing:
                raise ValueError(f"decision {decision.name!r} names unknown features {sorted(missing)}")
        if set(self.golden) != set(self.languages):
            raise ValueError(f"golden lists {sorted(self.golden)}, languages {list(self.languages)}: they must agree")
        words = set(self.skins[0].words)
        if any(set(skin.words) != words for skin in self.skins):
            raise ValueError("every skin must define the same words")
        return self

    def features_(self) -> tuple[Feature, ...]:
        """As :class:`Feature` objects."""
        return tuple(Feature(f.stem, f.title, f.ground, f.l1, f.core) for f in self.features)

    def decisions_(self) -> tuple[Decision, ...]:
        """As :class:`Decision` objects."""
        return tuple(
            Decision(
                d.name,
                tuple(Value(v.key, v.response, v.ground, v.tells, v.literal) for v in d.values),
                d.naive,
                d.clause,
                d.triggers,
                d.paraphrases,
                d.features,
            )
            for d in self.decisions
        )

    def templates_(self) -> tuple[Template, ...]:
        """As :class:`Template` objects."""
        out = []
        for t in self.templates:
            line, shown = (t, None) if isinstance(t, str) else (t.line, t.shown)
            out.append(Template(line, shown or line))
        return tuple(out)

    def formats_(self) -> tuple[FormatRecord, ...]:
        """As :class:`FormatRecord` objects."""
        return tuple(FormatRecord(f.key, f.response, f.triggers, f.paraphrases, f.features) for f in self.formats)

    def skins_(self) -> tuple[Skin, ...]:
        """As :class:`Skin` objects."""
        return tuple(Skin(s.name, dict(s.words), dict(s.pools)) for s in self.skins)


@cache
def load_family_spec(path: Path) -> FamilySpec:
    """Load and check a family's YAML file.

    Raises:
        TaskValidationError: naming the file and the field that is wrong.
    """
    return validate_model(FamilySpec, path, read_yaml_mapping(path))
