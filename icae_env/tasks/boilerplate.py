"""ICAE's standard records, generated for every icae-env task pack.

ICAE-Bench adds four boilerplate records (``ARCH001`` and ``HARNESS001..003``) and one ``TC_<stem>`` record
per public test file to the L1 and L2 User Agent Data of every task. Packs do not write them by hand; the
loader calls :func:`standard_records`.
"""

from __future__ import annotations

import json
import re

from icae_env.tasks.models import CaseFile, ConstraintKind, HiddenConstraint

__all__ = ["standard_records", "test_case_record", "public_cases_section"]

_ADAPTER_COMMAND = {"python": "python3 <adapter>.py", "javascript": "node <adapter>.js"}

_ARCH = HiddenConstraint(
    constraint_id="ARCH001",
    kind=ConstraintKind.ARCH,
    trigger_keywords=(
        "how should I organize the code",
        "single file or multiple files",
        "project structure",
        "directory layout",
        "should I separate business logic from IO",
        "what files should I create",
    ),
    oracle_response=(
        "Keep the core logic in a small library module that knows nothing about JSON, stdin or stdout, and put "
        "a thin execution adapter beside it that reads the JSON input, calls the library and prints the result. "
        "A few focused files are better than one monolith; no over-engineering."
    ),
)


def _harness_records(language: str, stems: list[str]) -> tuple[HiddenConstraint, ...]:
    command = _ADAPTER_COMMAND.get(language, "the adapter")
    listing = ", ".join(stems) if stems else "none"
    return (
        HiddenConstraint(
            constraint_id="HARNESS001",
            kind=ConstraintKind.PROTOCOL,
            trigger_keywords=(
                "how is the program invoked",
                "stdin stdout interface",
                "how to read input",
                "how does the test harness call my code",
                "what is the entry point for testing",
            ),
            oracle_response=(
                "Implement an execution adapter (for example `" + command + "`) that reads one JSON value from "
                "stdin (a test case's `input`), runs the library on it and writes the result to stdout exactly "
                "as specified, with nothing else on stdout."
            ),
        ),
        HiddenConstraint(
            constraint_id="HARNESS002",
            kind=ConstraintKind.PROTOCOL,
            trigger_keywords=(
                "how to write test.sh",
                "how should test.sh work",
                "cases-dir parameter",
                "where does test output go",
                "output file naming format",
            ),
            oracle_response=(
                "Deliver rcb_tests/test.sh, run from the repository root as `bash rcb_tests/test.sh --cases-dir "
                "<sub>` (default public_test_cases). For every rcb_tests/<sub>/*.json file it feeds each "
                "cases[i].input as JSON on stdin to the adapter, one process per case, and writes the raw stdout "
                "to rcb_tests/stdout/<sub>/<stem>@<i>.txt. It must work offline with only what the repo holds."
            ),
        ),
        HiddenConstraint(
            constraint_id="HARNESS003",
            kind=ConstraintKind.PROTOCOL,
            trigger_keywords=(
                "do you have test cases",
                "are there public test cases",
                "what test cases are provided",
                "what test files exist",
                "show me the test cases",
            ),
            oracle_response=(
                "Yes, public test cases are provided, one file per feature: " + listing + ". Ask me for a "
                "specific feature by name and I will give you the full file."
            ),
        ),
    )


def test_case_record(case_file: CaseFile) -> HiddenConstraint:
    """Return the ``TC_<stem>`` record whose response is the whole public case file as JSON."""
    words = " ".join(part for part in re.split(r"[_\-]+", case_file.stem) if part)
    number = re.match(r"feature(\d+)", case_file.stem)
    triggers = [
        f"test cases for {words}",
        f"show me {words} test cases",
        f"what are the {words} test inputs",
        f"give me the {case_file.stem} test file",
    ]
    if number:
        triggers.append(f"test cases for feature {number.group(1)}")
    body = json.dumps(case_file.to_json(), indent=2, ensure_ascii=False)
    return HiddenConstraint(
        constraint_id=f"TC_{case_file.stem}",
        kind=ConstraintKind.TEST_CASES,
        trigger_keywords=tuple(triggers),
        oracle_response=f"Here are the public test cases for {case_file.stem}:\n{body}",
    )


test_case_record.__test__ = False  # type: ignore[attr-defined]  # not a pytest test


def standard_records(language: str, public: tuple[CaseFile, ...]) -> tuple[HiddenConstraint, ...]:
    """Return ARCH001, HARNESS001..003 and one TC record per public case file, in ICAE order."""
    stems = [f.stem for f in public]
    return (_ARCH, *_harness_records(language, stems), *(test_case_record(f) for f in public))


def public_cases_section(public: tuple[CaseFile, ...]) -> str:
    """Return the markdown section listing the public cases, appended to the L3 and ground PRDs."""
    if not public:
        return ""
    parts = ["\n\n## Public test cases\n"]
    for case_file in public:
        body = json.dumps(case_file.to_json(), indent=2, ensure_ascii=False)
        parts.append(f"\n### {case_file.stem}.json\n\n```json\n{body}\n```\n")
    return "".join(parts)
