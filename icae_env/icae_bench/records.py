"""Lenient readers that normalise real ICAE-Bench record variants into the strict task model.

Release files vary (``id`` instead of ``constraint_id``, ``explanation`` instead of ``actual_meaning``,
bare-value answers, missing boilerplate ...). Each reader returns strict models and appends one short note per
normalisation to a :class:`Notes` collector, so that the importer can report what it changed.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from pydantic import ValidationError

from icae_env.tasks.models import MIN_TRIGGERS, ConstraintKind, ContextPointer, HiddenConstraint, TestCase

__all__ = ["Notes", "read_constraints", "read_pointers", "read_cases", "as_text"]

_ID_KEYS = ("constraint_id", "id", "constraint", "name", "key")
_TRIGGER_KEYS = ("trigger_keywords", "triggers", "keywords", "trigger_phrases")
_RESPONSE_KEYS = ("oracle_response", "response", "answer", "value")
_KNOWN_RECORD_KEYS = {*_ID_KEYS, *_TRIGGER_KEYS, *_RESPONSE_KEYS}
_VAGUE_KEYS = ("vague_reference", "phrase", "reference", "vague")
_MEANING_KEYS = ("actual_meaning", "explanation", "meaning", "resolution")
_EXPECTED_KEYS = ("expected_output", "expected", "output", "expected_stdout")


class Notes:
    """Collects normalisation notes; identical notes are counted instead of repeated."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()

    def add(self, note: str) -> None:
        """Record one normalisation."""
        self._counts[note] += 1

    def lines(self) -> tuple[str, ...]:
        """Return the notes in first-seen order, with ``(xN)`` for repeats."""
        return tuple(n if c == 1 else f"{n} (x{c})" for n, c in self._counts.items())


def as_text(value: Any) -> str:
    """Return a record value as text: strings unchanged, None as "", anything else as compact JSON."""
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _first(record: dict[str, Any], keys: tuple[str, ...]) -> tuple[str | None, Any]:
    for key in keys:
        if key in record:
            return key, record[key]
    return None, None


def _kind_for(cid: str, level: str) -> ConstraintKind:
    if cid.startswith("TC_"):
        return ConstraintKind.TEST_CASES
    if cid.startswith("ARCH"):
        return ConstraintKind.ARCH
    if cid.startswith("HARNESS"):
        return ConstraintKind.PROTOCOL
    return ConstraintKind.LITERAL if level == "L3" else ConstraintKind.BEHAVIOR


def _triggers(raw: Any, cid: str, response: str, notes: Notes, where: str) -> tuple[str, ...]:
    if isinstance(raw, str):
        raw = [raw]
        notes.add(f"{where}: trigger_keywords given as a string, wrapped in a list")
    phrases: list[str] = []
    for item in raw if isinstance(raw, list) else []:
        text = as_text(item).strip()
        if text and text.lower() not in (p.lower() for p in phrases):
            phrases.append(text)
    if len(phrases) < MIN_TRIGGERS:
        derived = [" ".join(w for w in re.split(r"[_\W]+", cid) if w), " ".join(response.split()[:8])]
        for extra in derived + [f"constraint {cid}", f"details of {cid}", f"what is {cid}"]:
            if len(phrases) >= MIN_TRIGGERS:
                break
            if extra.strip() and extra.lower() not in (p.lower() for p in phrases):
                phrases.append(extra)
        notes.add(f"{where}: fewer than {MIN_TRIGGERS} trigger phrases, padded from the record id and answer")
    return tuple(phrases)


def _one_record(raw: Any, index: int, level: str, notes: Notes) -> HiddenConstraint | None:
    where = f"{level} hidden_constraints"
    if not isinstance(raw, dict):
        notes.add(f"{where}: skipped a record that is not an object")
        return None
    id_key, cid = _first(raw, _ID_KEYS)
    if id_key and id_key != "constraint_id":
        notes.add(f"{where}: record id read from {id_key!r}")
    cid = as_text(cid).strip() or f"R{index + 1:03d}"
    if id_key is None:
        notes.add(f"{where}: record without id named {cid}")
    resp_key, response = _first(raw, _RESPONSE_KEYS)
    if resp_key != "oracle_response":
        notes.add(f"{where}: answer read from {resp_key!r}" if resp_key else f"{where}: record without answer")
    if response is not None and not isinstance(response, str):
        notes.add(f"{where}: non-string oracle_response rendered as JSON text")
    text = as_text(response)
    _, triggers = _first(raw, _TRIGGER_KEYS)
    extra = sorted(set(raw) - _KNOWN_RECORD_KEYS)
    if extra:
        notes.add(f"{where}: dropped extra record keys {extra}")
    try:
        return HiddenConstraint(
            constraint_id=cid,
            kind=_kind_for(cid, level),
            trigger_keywords=_triggers(triggers, cid, text, notes, where),
            oracle_response=text,
        )
    except ValidationError as exc:
        notes.add(f"{where}: skipped record {cid}: {exc.errors()[0]['msg']}")
        return None


def read_constraints(raw: Any, level: str, notes: Notes) -> tuple[HiddenConstraint, ...]:
    """Normalise a ``hidden_constraints`` value (list, or mapping of id to record) into strict records."""
    if isinstance(raw, dict):
        raw = [{"constraint_id": k, **v} if isinstance(v, dict) else v for k, v in raw.items()]
        notes.add(f"{level} hidden_constraints: mapping of records turned into a list")
    if not isinstance(raw, list):
        if raw is not None:
            notes.add(f"{level} hidden_constraints: not a list, ignored")
        return ()
    records: list[HiddenConstraint] = []
    seen: Counter[str] = Counter()
    for index, item in enumerate(raw):
        record = _one_record(item, index, level, notes)
        if record is None:
            continue
        seen[record.constraint_id] += 1
        if seen[record.constraint_id] > 1:
            new_id = f"{record.constraint_id}#{seen[record.constraint_id]}"
            notes.add(f"{level} hidden_constraints: duplicate id {record.constraint_id} renamed {new_id}")
            record = record.model_copy(update={"constraint_id": new_id})
        records.append(record)
    return tuple(records)


def read_pointers(raw: Any, level: str, notes: Notes) -> tuple[ContextPointer, ...]:
    """Normalise ``context_pointers`` (list of objects, or mapping of phrase to meaning)."""
    where = f"{level} context_pointers"
    if isinstance(raw, dict):
        raw = [{"vague_reference": k, "actual_meaning": v} for k, v in raw.items()]
        notes.add(f"{where}: mapping turned into a list")
    pointers: list[ContextPointer] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, dict):
            notes.add(f"{where}: skipped a pointer that is not an object")
            continue
        vague_key, vague = _first(item, _VAGUE_KEYS)
        meaning_key, meaning = _first(item, _MEANING_KEYS)
        if not as_text(vague).strip():
            notes.add(f"{where}: skipped a pointer without vague_reference")
            continue
        if meaning_key != "actual_meaning":
            notes.add(f"{where}: meaning read from {meaning_key!r}" if meaning_key else f"{where}: no meaning")
        text = as_text(meaning)
        if "code_location" in item:
            text = f"{text} (see {as_text(item['code_location'])})".strip()
            notes.add(f"{where}: code_location folded into actual_meaning")
        if vague_key != "vague_reference":
            notes.add(f"{where}: phrase read from {vague_key!r}")
        pointers.append(ContextPointer(vague_reference=as_text(vague).strip(), actual_meaning=text))
    return tuple(pointers)


def read_cases(raw: Any, where: str, notes: Notes) -> tuple[str, tuple[TestCase, ...]] | None:
    """Normalise one case file's JSON (object with ``cases``, bare list, or a single case).

    Returns:
        ``(description, cases)``, or None when nothing usable is there.
    """
    description = ""
    if isinstance(raw, dict) and "cases" in raw:
        description = as_text(raw.get("description"))
        raw = raw["cases"]
    elif isinstance(raw, dict) and "input" in raw:
        raw = [raw]
        notes.add(f"{where}: a single case object turned into a case list")
    elif isinstance(raw, list):
        notes.add(f"{where}: a bare case list")
    if not isinstance(raw, list):
        notes.add(f"{where}: no case list, skipped")
        return None
    cases = []
    for item in raw:
        if not isinstance(item, dict) or "input" not in item:
            notes.add(f"{where}: skipped a case without input")
            continue
        out_key, expected = _first(item, _EXPECTED_KEYS)
        if out_key != "expected_output":
            notes.add(
                f"{where}: expected output read from {out_key!r}"
                if out_key
                else f"{where}: case without expected_output"
            )
        cases.append(TestCase(input=item["input"], expected_output=expected))
    return description, tuple(cases)
