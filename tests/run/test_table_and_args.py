"""The result table (whole errors in their own column, a mean row that averages seconds) and baseline flags."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from icae_env.run import EpisodeResult, format_table
from icae_env.run.args import SuiteArgs, field_help, parse_args

ROOT = Path(__file__).resolve().parents[2]
LONG = "LLMHttpError: http://127.0.0.1:8000/v1/chat/completions answered HTTP 503: " + "overloaded; " * 20


def result(task: str, seconds: float, **fields) -> EpisodeResult:
    return EpisodeResult(agent="a", task=task, level="L1", seed=0, seconds=seconds, steps=4, **fields)


def test_the_mean_row_averages_seconds():
    table = format_table([result("a", 10.0, overall=1.0), result("b", 30.0, overall=0.5)])
    mean = next(line for line in table.splitlines() if line.startswith("MEAN")).split()
    assert mean[1] == "75.0" and mean[-1] == "20.0" and mean[-2] == "4.0"
    assert "error" not in table.splitlines()[0].split()  # no column when nothing went wrong


def test_a_whole_error_goes_in_its_own_column():
    results = [
        result("a", 10.0, overall=1.0, public=1.0),
        result("b", 5.0, error=LONG),
        result(
            "c", 7.0, overall=0.25, public=0.5, truncated=True, agent_error="LLMContextError: requested 8919 tokens"
        ),
    ]
    lines = format_table(results).splitlines()
    assert lines[0].split()[-1] == "error"
    row = next(line for line in lines if line.startswith("b "))
    assert row.split()[2] == "ERROR" and row.endswith(" ".join(LONG.split()))  # whole, not under Public
    scored = next(line for line in lines if line.startswith("c "))
    assert scored.split()[2] == "25.0" and scored.endswith(
        "(truncated, scored): LLMContextError: requested 8919 tokens"
    )
    mean = next(line for line in lines if line.startswith("MEAN")).split()
    assert mean[1] == "62.5" and mean[-1] == "8.5"  # the scored episodes only
    markdown = format_table([result("b", 1.0, error="x | y")], markdown=True)
    assert "x \\| y" in markdown and markdown.splitlines()[0].endswith("| error |")


def test_revision_tables_average_seconds_and_show_errors_whole():
    results = [result("r1", 2.0, strict=1.0, graded=1.0, full_pass=True), result("r2", 6.0, error=LONG)]
    lines = format_table([*results, result("r3", 4.0, strict=0.0, graded=0.5, full_pass=False)]).splitlines()
    assert lines[0].split()[-1] == "error" and lines[-1].split()[-1] == "3.0"
    assert next(line for line in lines if line.startswith("r2")).endswith(" ".join(LONG.split()))


@dataclass
class Args(SuiteArgs):
    max_steps: int = 40
    """steps before the episode is truncated and scored"""
    native_tools: bool = True
    """send the tools natively"""
    mode: str = field(default="empty", metadata={"choices": ("empty", "null"), "help": "what to send"})


def test_flags_take_hyphens_and_underscores():
    assert parse_args(Args, "x", ["--max-steps", "7"]).max_steps == 7
    assert parse_args(Args, "x", ["--max_steps", "8", "--native-tools", "false"]).native_tools is False
    assert parse_args(Args, "x", ["--mode", "null"]).mode == "null"
    with pytest.raises(SystemExit):
        parse_args(Args, "x", ["--mode", "none"])
    with pytest.raises(SystemExit):
        parse_args(Args, "x", ["--native-tools", "maybe"])


def test_help_comes_from_the_field_docstrings(capsys):
    assert field_help(Args) == {
        "tasks": "comma-separated task names or pack paths; 'builtin' selects every built-in task",
        "levels": "comma-separated levels (L1, L2, L3, ground)",
        "seed": "reset seed",
        "out": "output directory for results.jsonl and summary.md (empty: none)",
        "max_steps": "steps before the episode is truncated and scored",
        "native_tools": "send the tools natively",
        "mode": "what to send",
    }
    with pytest.raises(SystemExit):
        parse_args(Args, "A baseline.\n\nMore words.", ["--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--max-steps MAX_STEPS, --max_steps MAX_STEPS steps before the episode is truncated and scored" in text
    assert "(default: 40)" in text and "A baseline." in text and "More words." in text


def test_the_llm_baseline_help_describes_every_flag():
    out = subprocess.run(
        [sys.executable, str(ROOT / "baselines" / "llm_agent.py"), "--help"], capture_output=True, text=True, timeout=60
    ).stdout
    text = " ".join(out.split())
    for flag, words in [
        ("--max-steps", "steps (model calls) before the episode is truncated"),
        ("--context-length", "the model's context in tokens"),
        ("--tool-content", 'empty ("", llama-cpp-python) or null'),
        ("--base-url", "chat-completions base URL"),
    ]:
        assert flag in out and words in text, flag
