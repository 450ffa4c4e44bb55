"""Labelled questions, the precision metrics, the background and the gate's shipped constants."""

import json
from pathlib import Path

import numpy as np
import pytest

from benchmarks.router_fit.fits import builtin_background, fit_default_router
from benchmarks.router_fit.labels import LabelData, evaluate_labels, label_problems, load_labels
from icae_env.errors import ArgumentError
from icae_env.tasks import load_task
from icae_env.user_agent.base import Document, Match
from icae_env.user_agent.features.background import DEFAULT_BACKGROUND, Background, build_background
from icae_env.user_agent.features.gate import DEFAULT_GATE, Gate
from icae_env.user_agent.grounded import documents_for
from icae_env.user_agent.routers.lexical import DEFAULT_WEIGHTS, LexicalRouter

DATA = Path(__file__).resolve().parents[2] / "benchmarks" / "data"
TASK = "builtin/dep-resolver"
#: A small hand-written set on dep-resolver L1 (records read from the task: C004 cycles, C005 missing packages).
FIXTURE = [
    {"kind": "paraphrase", "question": "how do you report a circular dependency?", "records": ["C004"], "of": "C004"},
    {"kind": "paraphrase", "question": "what if a dependency is nowhere defined?", "records": ["C005"], "of": "C005"},
    {"kind": "cross_task", "question": "does a caret range accept a pre-release?", "records": [], "of": None},
    {"kind": "generic", "question": "what license should the code use?", "records": [], "of": None},
    {"kind": "off_topic", "question": "what is the capital of Australia?", "records": [], "of": None},
    {"kind": "off_topic", "question": "do you like jazz?", "records": [], "of": None, "note": "plainly off topic"},
]


class Scripted:
    """A router that answers each question with fixed document ids."""

    name = "scripted"

    def __init__(self, docs, answers):
        self.index = {d.doc_id: i for i, d in enumerate(docs)}
        self.answers = answers

    def route(self, question):
        return [Match(self.index[cid], 1.0) for cid in self.answers.get(question, ())]


@pytest.fixture
def labels(tmp_path):
    path = tmp_path / "labels.jsonl"
    lines = [json.dumps({"source": "builtin", "task": TASK, "level": "L1", **row}) for row in FIXTURE]
    path.write_text("\n".join(lines) + "\n\n")
    return load_labels(path)


def test_load_labels_and_problems(labels, tmp_path):
    assert len(labels) == 6 and labels[0].is_paraphrase and not labels[2].is_paraphrase
    assert labels[-1].note == "plainly off topic" and labels[0].key == ("builtin", TASK, "L1")
    data = LabelData()
    assert label_problems(labels, data) == []
    assert LabelData.task_name(labels[0].model_copy(update={"task": "dep-resolver"})) == TASK
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"source": "builtin", "task": TASK, "level": "L1", "kind": "nope", "question": "q",
                               "records": []}) + "\n")  # fmt: skip
    with pytest.raises(ArgumentError, match=r"bad.jsonl:1: not a labelled question"):
        load_labels(bad)
    wrong = labels[0].model_copy(update={"records": ("C999",)})
    assert "unknown ids ['C999']" in label_problems([wrong], data)[0]
    with pytest.raises(ArgumentError, match="no ICAE data root"):
        data(labels[0].model_copy(update={"source": "icae-sample", "task": "realcode@001"}))


def test_metrics_count_exactly(labels):
    data = LabelData()
    answers = {
        FIXTURE[0]["question"]: ("C004", "HARNESS001", "C001", "C002"),  # recalled; C001 unasked, C002 past 3 points
        FIXTURE[1]["question"]: ("C004",),  # missed
        FIXTURE[2]["question"]: ("C002",),  # a false task-specific reveal
        FIXTURE[3]["question"]: ("ARCH001",),  # generic record: not a task-specific reveal
        FIXTURE[4]["question"]: ("HARNESS002",),  # answered off-topic question
    }
    quality = evaluate_labels(labels, data, lambda label, d: Scripted(documents_for(d), answers))
    assert (quality.questions, quality.unanswerable, quality.paraphrases, quality.off_topic) == (6, 4, 2, 2)
    assert quality.false_reveal == pytest.approx(1 / 4) and quality.recall == pytest.approx(1 / 2)
    assert quality.off_topic_fallback == pytest.approx(1 / 2)
    assert quality.false_reveal_by_kind == {"cross_task": (1, 1.0), "generic": (1, 0.0), "off_topic": (2, 0.0)}
    assert quality.ids_per_answer == pytest.approx(7 / 5) and quality.p90_ms >= quality.median_ms >= 0
    # task-specific records the labels do not list, per answerable question: C001 (not C002, past the reply's three
    # points; nor HARNESS001, a generic record), and C004 for the missed paraphrase
    assert (quality.answerable, quality.unasked_reveals) == (2, pytest.approx(2 / 2))
    assert [e[2] for e in quality.errors] == [FIXTURE[i]["question"] for i in (1, 2, 4)]


def test_default_router_on_the_fixture(labels):
    cache = {}
    quality = evaluate_labels(
        labels, LabelData(), lambda label, d: cache.setdefault(label.key, LexicalRouter(documents_for(d)))
    )
    assert quality.false_reveal == 0.0 and quality.off_topic_fallback == 1.0 and quality.recall == 1.0


def test_background_specificity_and_round_trip():
    background = build_background([{"a", "b"}, {"a", "c"}, {"a", "b", "d"}], min_df=2, responses=["Only here."])
    assert background.df == {"a": 3, "b": 2} and background.units == 3
    assert background.specificity("a") == 0.0 and background.specificity("zzz") == 1.0
    assert 0 < background.specificity("b") < 1
    assert background.specificity("b", own=True) == 1.0  # one unit less: b is then below min_df
    assert background.is_member(["Only  here."]) and not background.is_member(["Elsewhere."])
    assert Background.decode(background.encode()) == background
    with pytest.raises(ArgumentError, match="min_df must be an int >= 1"):
        build_background([{"a"}], min_df=0)
    with pytest.raises(ArgumentError, match="at least one unit"):
        build_background([])


def test_empty_responses_are_never_answered():
    docs = [
        Document("C001", "literal", ("what is printed for bad input", "bad input line", "error line"), ""),
        Document("C002", "literal", ("what is printed for an unknown root", "unknown root line", "root error"), "x"),
    ]
    gate = Gate(docs)
    assert gate.candidates(np.array([9.0, 1.0])) == [1]
    assert [m.index for m in LexicalRouter(docs).route("what is printed for bad input")] in ([], [1])


def test_shipped_background_is_the_builtin_one():
    assert builtin_background() == DEFAULT_BACKGROUND
    assert Gate(documents_for(load_task(TASK).user_agent_data("L1")))._member  # a built-in task is a unit


@pytest.mark.skipif(not (DATA / "router_eval_builtin.jsonl").is_file(), reason="labelled data absent")
def test_shipped_constants_are_the_builtin_fit():
    """Ranker weights, background and gate are what the documented fit gives on the built-in tasks."""
    fit = fit_default_router(str(DATA / "router_eval_builtin.jsonl"))
    assert fit.weights == DEFAULT_WEIGHTS and fit.background == DEFAULT_BACKGROUND and fit.gate == DEFAULT_GATE
