"""What a task family is: a small tool with a fixed contract whose hidden product decisions are drawn per task.

A family (a subclass of :class:`Family`) declares its **features** (case-file stems), its **decisions** (product
decisions with 2-4 defensible values, the naive default among them, the record text, ground-PRD sentence and tells
of each value, the vague L1 clause, stored trigger phrasings and a separate held-out paraphrase bank), and its
**skins** (nouns and value pools that change the surface only). For one :class:`Plan` (skin, features, a value per
decision, language) it writes the **golden** repository (building blocks composed with a fixed core and a thin
adapter; the framework adds ``rcb_tests/test.sh``) and **samples** inputs per feature. The golden's own Python
source is also the in-process model (:mod:`icae_env.families.model`), so cases, ablations and certification never
start a sandbox and can never disagree with the golden.

Rules a family follows (the certifier checks most of them):

* the contract: one JSON object on stdin, exact text on stdout; errors are a documented line on stdout;
* every decision shows in the output of at least one of its features, on inputs the samplers produce;
* every case input carries task-drawn content (a label, names, numbers) that reaches the output, so that no
  hidden case of one task repeats in another;
* tells are specific strings (``"spelling of its first row"``, not ``"first row"``) that only its value's record
  and ground sentence contain; no L1 clause, context pointer or public case may contain one.
"""

from __future__ import annotations

import random
import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, Literal

from icae_env.errors import ArgumentError

__all__ = [
    "SAMPLE_KINDS",
    "Decision",
    "Family",
    "Feature",
    "FormatRecord",
    "Plan",
    "SampleKind",
    "Skin",
    "Template",
    "Value",
]

#: "a" before a word that starts with a vowel sound ("a one-line", "a euro" keep their "a").
_ARTICLE = re.compile(r"\b([Aa]) (?!(?i:one|once|eu))([aeioAEIO])")
SampleKind = Literal["public", "typical", "boundary", "malformed"]
SAMPLE_KINDS: tuple[SampleKind, ...] = ("public", "typical", "boundary", "malformed")


@dataclass(frozen=True)
class Value:
    """One defensible value of a hidden decision.

    Attributes:
        key: Identifier within the decision (``"total_desc"``).
        response: What the User Agent answers when asked (the record's ``oracle_response``).
        ground: The ground-PRD sentence that states it (L2 and ground PRDs; L3 masks ``literal`` in it).
        tells: Strings that give the value away; they may appear only in this value's record and ground sentence.
        literal: A short literal of ``ground`` that the L3 PRD may mask (``"(ask for it)"``); None: never masked.
    """

    key: str
    response: str
    ground: str
    tells: tuple[str, ...]
    literal: str | None = None


@dataclass(frozen=True)
class Decision:
    """A product decision the L1 PRD leaves open.

    Attributes:
        name: Identifier within the family (``"order"``).
        values: Two to four values.
        naive: The key of the value an agent assumes when nobody tells it (an ablation the certifier tries).
        clause: A vague L1 clause that names the topic, never the value.
        triggers: At least eight phrasings stored as the record's trigger phrases.
        paraphrases: At least eight other phrasings, never stored (the held-out routing check).
        features: The features whose output depends on the decision (present when one of them is).
    """

    name: str
    values: tuple[Value, ...]
    naive: str
    clause: str
    triggers: tuple[str, ...]
    paraphrases: tuple[str, ...]
    features: tuple[str, ...]

    def value(self, key: str) -> Value:
        """The value named ``key``.

        Raises:
            ArgumentError: for an unknown key.
        """
        for value in self.values:
            if value.key == key:
                return value
        raise ArgumentError(f"decision {self.name!r} has no value {key!r}; values: {[v.key for v in self.values]}")


@dataclass(frozen=True)
class Template:
    """One kind of line the golden can print (every output line of every case matches exactly one).

    Attributes:
        line: The line with ``<name>`` placeholders for what varies (``row <n>: malformed quoting``); a placeholder
            matches any text unless the family's ``placeholders`` give it a pattern. Skin words as ``{word}``.
        shown: How a level-visible channel states it (a record, a PRD, the API signature): that text must appear
            in the channel verbatim, or a public case must print a line of this template (default: ``line``).
    """

    line: str
    shown: str


@dataclass(frozen=True)
class FormatRecord:
    """A plain answer about output wording, given at every level (an ordinary task record; it counts for coverage).

    Attributes:
        key: Identifier within the family (``error_lines``).
        response: The answer; it states the templates it covers verbatim and fixes no hidden decision.
        triggers: At least eight plain questions stored as its trigger phrases.
        paraphrases: At least eight other plain questions, never stored (the held-out routing check).
        features: The features whose output it describes (present when one of them is; empty: always).
    """

    key: str
    response: str
    triggers: tuple[str, ...]
    paraphrases: tuple[str, ...]
    features: tuple[str, ...] = ()


@dataclass(frozen=True)
class Feature:
    """One feature: a case-file stem and how the PRDs describe it.

    Attributes:
        stem: The case-file stem (``feature1_summary``).
        title: A short title.
        ground: What it does, as the ground PRD states it (visible behaviour only, no hidden decision).
        l1: How the vague L1 PRD mentions it (business voice).
        core: Whether every task has it.
    """

    stem: str
    title: str
    ground: str
    l1: str
    core: bool = False


@dataclass(frozen=True)
class Skin:
    """The surface of a task: its domain nouns and the pools samplers draw values from.

    Attributes:
        name: Identifier (``expenses``).
        words: Placeholder -> text, used in PRDs and the golden's messages (``{"item": "expense"}``).
        pools: Name -> values samplers draw from (``{"names": ("rent", "travel", ...)}``).
    """

    name: str
    words: dict[str, str]
    pools: dict[str, tuple[Any, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class Plan:
    """Everything one task is made from; a pure function of (family, split, index, knobs).

    Attributes:
        family: The family's name.
        split: ``train`` or ``test``.
        index: The task's index within the split.
        skin: The task's skin.
        features: The stems of its features, in the family's order.
        values: Decision name -> value key, for the decisions of its features.
        language: ``python`` or ``javascript``.
        revealed: Decisions the L2 PRD states.
        masked: Decisions whose literal the L3 PRD masks (the rest are stated at L3).
        stated: Decisions stated in every PRD (visible; not asked for).
        knobs: The difficulty knobs the task was drawn with.
        seed: A 64-bit seed derived from the task's identity (for the samplers).
        attempt: Which certification attempt planned it (0: the first).
        version: The family's version (part of the task id: tasks of two versions are different tasks).
    """

    family: str
    split: str
    index: int
    skin: Skin
    features: tuple[str, ...]
    values: dict[str, str]
    language: str
    revealed: tuple[str, ...]
    masked: tuple[str, ...]
    stated: tuple[str, ...]
    knobs: dict[str, Any]
    seed: int
    attempt: int = 0
    version: int = 1

    @property
    def hidden(self) -> tuple[str, ...]:
        """The decisions the L1 PRD leaves to be asked for."""
        return tuple(name for name in self.values if name not in self.stated)

    @property
    def name(self) -> str:
        """``gen/<family>/<split>/<index>``."""
        return f"gen/{self.family}/{self.split}/{self.index}"

    @property
    def task_id(self) -> str:
        """The task id: ``<family>-v<version>-<split>-<index>``."""
        return f"{self.family}-v{self.version}-{self.split}-{self.index}"

    def with_value(self, decision: str, key: str) -> Plan:
        """The same plan with one decision set to ``key`` (an ablation)."""
        return Plan(**{**self.__dict__, "values": {**self.values, decision: key}})

    def word(self, name: str) -> str:
        """A skin word."""
        return self.skin.words[name]

    def text(self, template: str) -> str:
        """``template`` with the skin's words filled in (``{item}``), and "a" before a vowel written "an"."""
        return _ARTICLE.sub(lambda m: m.group(1) + "n " + m.group(2), template.format(**self.skin.words))

    def rng(self, purpose: str) -> random.Random:
        """A generator for ``purpose``, derived from the plan's seed by a hash (never ``seed + n``)."""
        from icae_env.families.keys import stream

        return random.Random(stream(str(self.seed), purpose))


class Family(ABC):
    """A task family (see the module docstring): a folder with its YAML file, golden sources and this subclass.

    The subclass is the folder's ``__init__.py``; beside it are ``family.yaml`` (texts, decisions, skins; see
    :mod:`icae_env.families.spec_file`) and the golden's source files (:mod:`icae_env.families.golden_tree`).

    Attributes:
        name: Registered name (``ledger-report``).
        version: The family's version (bumped whenever a task of the family changes).
        title: Human-readable title (may use skin words).
        languages: Goldens it can emit (``python`` first; ``javascript`` when it ships a JS golden too).
        held_out: A held-out family: every task is in the test split (the main test split of the supply).
        features: Its features.
        decisions: Its hidden decisions.
        skins: Its skins.
        api_signature: The golden API signature (the User Agent's answer to interface questions).
        templates: Every kind of line its goldens print.
        formats: Its format records.
        placeholders: Template placeholder name -> the regular expression it matches (others match any text).
        folder: The family's folder.
    """

    def __init__(self) -> None:
        import inspect
        from pathlib import Path

        from icae_env.families.spec_file import load_family_spec

        self.folder = Path(inspect.getfile(type(self))).parent
        spec = load_family_spec(self.folder / "family.yaml")
        self.name, self.title, self.languages, self.held_out = spec.name, spec.title, spec.languages, spec.held_out
        self.version = spec.version
        self.api_signature, self.intro_text = spec.api_signature, spec.intro
        self.features, self.decisions, self.skins = spec.features_(), spec.decisions_(), spec.skins_()
        self.rules_paths = {language: golden.rules for language, golden in spec.golden.items()}
        self.templates, self.formats = spec.templates_(), spec.formats_()
        self.placeholders = dict(spec.placeholders)

    def intro(self, plan: Plan) -> str:
        """The business framing that opens every PRD of the task (the YAML ``intro``; may use skin words)."""
        return self.intro_text

    def constants(self, plan: Plan, language: str) -> dict[str, Any]:
        """Names the task's rules module defines after its header (none by default; JSON values)."""
        return {}

    def golden(self, plan: Plan, language: str) -> dict[str, str]:
        """The golden repository's source files for ``plan`` in ``language`` (not the adapter or ``rcb_tests``).

        The Python golden is one package exporting ``handle(data) -> str`` (the whole stdout of one case); the
        framework adds ``adapter.py``; a JavaScript golden's ``src/index.js`` exports ``handle`` and the framework
        adds ``adapter.js``.

        Raises:
            ArgumentError: for a language the family has no golden in.
        """
        return self.sources(plan.values, language, self.constants(plan, language))

    def sources(
        self, values: dict[str, str], language: str = "python", constants: dict[str, Any] | None = None
    ) -> dict[str, str]:
        """The golden's source files for decision ``values`` (a model for samplers; :meth:`golden` for tasks).

        Raises:
            ArgumentError: for a language the family has no golden in.
        """
        from icae_env.families.golden_tree import compose_golden

        if language not in self.rules_paths:
            raise ArgumentError(f"{self.name} has no {language} golden; languages: {list(self.languages)}")
        order = [(d.name, tuple(v.key for v in d.values)) for d in self.decisions]
        return compose_golden(self.folder, language, self.rules_paths[language], order, values, constants)

    @abstractmethod
    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One input (a JSON value) for ``feature``: ``public`` (simple), ``typical``, ``boundary`` or ``malformed``."""

    def decision(self, name: str) -> Decision:
        """The decision named ``name``.

        Raises:
            ArgumentError: for an unknown name.
        """
        for decision in self.decisions:
            if decision.name == name:
                return decision
        raise ArgumentError(f"family {self.name!r} has no decision {name!r}")

    def feature(self, stem: str) -> Feature:
        """The feature whose stem is ``stem``.

        Raises:
            ArgumentError: for an unknown stem.
        """
        for feature in self.features:
            if feature.stem == stem:
                return feature
        raise ArgumentError(f"family {self.name!r} has no feature {stem!r}")

    def formats_of(self, features: tuple[str, ...]) -> tuple[FormatRecord, ...]:
        """The format records of a task with ``features``, in the family's order."""
        return tuple(f for f in self.formats if not f.features or set(f.features) & set(features))

    def decisions_of(self, features: tuple[str, ...]) -> tuple[Decision, ...]:
        """The decisions that some feature of ``features`` depends on, in the family's order."""
        return tuple(d for d in self.decisions if set(d.features) & set(features))
