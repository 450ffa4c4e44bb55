"""experiments/train_clarifier.py, its benchmark, baselines/heuristic_clarifier.py: candidates, heuristic, training.

The aggregate figure (the held-out gain of a training run over many episodes and tasks) is measured by
``benchmarks/clarifier_training.py`` and recorded in docs/experiments.md; here short runs check the same code path.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from icae_env.baselines.heuristic_clarifier import (
    GENERIC_QUESTIONS,
    GROUP_SIZES,
    TERM_TEMPLATES,
    HeuristicClarifier,
    candidate_questions,
    prd_list_items,
    prd_sentences,
    prd_terms,
)
from icae_env.envs.clarify import STOP, ClarifyEnv
from icae_env.tasks import load_task
from icae_env.user_agent.grounded import MAX_POINTS, MAX_QUESTIONS, NOTICE, split_questions

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENT = ROOT / "experiments" / "train_clarifier.py"
SAMPLE = ROOT.parent / "shared" / "icae-sample"  # read when present; the tests run without it
PRD = "## PRD\nWe need a diff tool. The diff tool prints hunks; the hunk header shows ranges.\n- keep the core small"
RESULT = re.compile(r"held-out task-specific coverage: before (\d+\.\d)%, after (\d+\.\d)% \(([+-]\d+\.\d) points\)")


def run_script(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=900, cwd=ROOT)


def test_prd_terms_and_sentences_come_from_the_prd():
    terms = prd_terms(PRD, 4)
    assert terms[0] == "diff tool" and len(terms) == 4  # the most frequent multi-word phrase leads
    assert all(t in PRD.lower() for t in terms) and "need" not in " ".join(terms)  # PRD phrases, no stopwords
    assert not any(a in b for a in terms for b in terms if a != b) and "hunk header shows" not in terms
    assert prd_sentences(PRD) == [
        "We need a diff tool.",
        "The diff tool prints hunks; the hunk header shows ranges.",
        "keep the core small",
    ]
    with pytest.raises(ValueError, match="limit must be >= 0, got -1"):
        prd_terms(PRD, -1)


def test_list_items_are_marked_per_sentence():
    prd = "# T\nIt covers these parts:\n- A header check: the columns. Then the rows are read.\n* Two more words here\n"
    prd += "1. Numbered items count as well\nA closing sentence of the PRD. Not - a list item though."
    assert prd_sentences(prd) == [
        "It covers these parts:",
        "A header check: the columns.",
        "Then the rows are read.",
        "Two more words here",
        "Numbered items count as well",
        "A closing sentence of the PRD.",
        "Not - a list item though.",
    ]
    assert prd_list_items(prd) == [False, True, True, True, True, False, False]
    assert prd_list_items(prd, limit=2) == [False, True]
    for split in (prd_sentences, prd_list_items):
        with pytest.raises(ValueError, match="limit must be >= 0, got -1"):
            split(prd, -1)


def test_prepositions_are_not_prd_terms():
    prd = "Limits per sender per window. Counts between windows, between runs, across hosts and across regions."
    words = {w for term in prd_terms(prd, 10) for w in term.split()}
    assert words and not words & {"per", "between", "across"} and {"sender", "window"} <= words


def test_candidates_cover_generic_term_and_sentence_kinds():
    candidates = candidate_questions(PRD, terms=2)
    kinds = [k.split(":")[0] for k, _ in candidates]
    assert kinds.count("generic") == len(GENERIC_QUESTIONS)
    assert kinds.count("term") == 2 * len(TERM_TEMPLATES) and kinds.count("sentence") == 3
    assert ("term:1:0", TERM_TEMPLATES[1].format(term="diff tool")) in candidates
    assert candidates[-1] == ("sentence:2:3", "keep the core small How exactly should this work?")
    assert not [k for k, _ in candidates if k.startswith("group:")]  # no grouped messages unless asked for


def test_grouped_messages_ask_about_terms_consecutive_in_salience_with_the_first_template():
    terms = prd_terms(PRD, 4)
    candidates = candidate_questions(PRD, terms=2, grouped=4)
    assert [k for k, _ in candidates if k.startswith("term:")] == [k for k, _ in candidate_questions(PRD, terms=2)][
        len(GENERIC_QUESTIONS) : len(GENERIC_QUESTIONS) + 2 * len(TERM_TEMPLATES)
    ]  # the single-term questions still use the first ``terms`` terms only
    groups = dict((k, q) for k, q in candidates if k.startswith("group:"))
    assert list(groups) == ["group:2:0", "group:2:1", "group:2:2", "group:3:0", "group:3:1"] and GROUP_SIZES == (2, 3)
    assert max(GROUP_SIZES) <= MAX_QUESTIONS  # the User Agent answers every question of a grouped message
    assert groups["group:3:1"] == " ".join(TERM_TEMPLATES[0].format(term=t) for t in terms[1:4])
    assert split_questions(groups["group:3:1"]) == [TERM_TEMPLATES[0].format(term=t)[:-1] for t in terms[1:4]]
    for bad in (dict(terms=-1), dict(grouped=-2)):
        with pytest.raises(ValueError, match=f"{next(iter(bad))} must be >= 0"):
            candidate_questions(PRD, **bad)


def test_the_heuristic_reads_only_the_prd_and_stops_at_the_budget():
    env = ClarifyEnv(task="builtin/unidiff", budget=4, question_cost=0.0)
    policy = HeuristicClarifier()
    observation, info = env.reset(seed=0)
    policy.reset(observation, {}, 0)  # what the agent sees: the heuristic never has the task
    asked, done = [], False
    while not done:
        action = policy.act(observation, info)
        asked.append(action)
        observation, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    assert len(asked) == 4 and STOP not in asked and asked[0] == GENERIC_QUESTIONS[0]
    assert info["stats"]["task_coverage"] > 0
    assert policy.act({"questions_left": 0}, {}) == STOP
    with pytest.raises(ValueError, match="terms must be >= 0, got -2"):
        HeuristicClarifier(terms=-2)


def test_the_heuristic_script_prints_a_coverage_table():
    result = run_script(
        "baselines/heuristic_clarifier.py", "--tasks", "builtin/unidiff,builtin/cron-next", "--budget", "3"
    )
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()[1:]]
    assert [r[:2] for r in rows[:4]] == [["unidiff", "L1"], ["unidiff", "L2"], ["cron-next", "L1"], ["cron-next", "L2"]]
    assert all(r[3] == "3" for r in rows[:4]) and rows[-1][0] == "MEAN"


def test_a_short_training_run_saves_the_curve_and_prints_before_and_after(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "train"
    # built-in tasks and the distilled router: no family to certify, no cross-encoder logits to compute (the
    # families' run is benchmarks/clarifier_training.py's)
    small = ("--suite", "builtin", "--held_out", "builtin/unidiff,builtin/cron-next", "--levels", "L1")
    result = run_script(
        "experiments/train_clarifier.py", *small, "--episodes", "12", "--eval_every", "6", "--eval_episodes", "2",
        "--refit_every", "4", "--router", "distilled", "--icae_sample", str(SAMPLE) if SAMPLE.is_dir() else "",
        "--out", str(out),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    match = RESULT.search(result.stdout)
    assert match, result.stdout
    before, after, gain = map(float, match.groups())
    assert gain == pytest.approx(after - before, abs=0.11)
    assert "held-out coverage per evaluation: 0: " in result.stdout and ", 12: " in result.stdout
    assert "  builtin/unidiff: before" in result.stdout and "  builtin/cron-next: before" in result.stdout
    assert ("ICAE sample task-specific coverage: before" in result.stdout) == SAMPLE.is_dir()
    assert ("ICAE sample: skipped" in result.stdout) != SAMPLE.is_dir()
    png = out / "learning_curve.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and f"learning curve: {png}" in result.stdout


def test_a_few_training_episodes_refit_the_policy_and_the_benchmark_reports_the_gain(monkeypatch):
    """The code path of benchmarks/clarifier_training.py at a tiny scale (its figures are in docs/experiments.md)."""
    example = _example()
    made = []

    class Spy(example.Policy):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)

    monkeypatch.setattr(example, "Policy", Spy)
    args = dict(suite="builtin", held_out="builtin/unidiff", levels="L1", episodes=6, refit_every=3, eval_every=3,
                eval_episodes=1, icae_sample="", router="distilled")  # fmt: skip
    result = example.train(example.Args(**args))
    assert len(result.history) == 6 and [episode for episode, _ in result.curve] == [0, 3, 6]
    assert len(made) == 1 and made[0].theta.any()  # refitted from the training episodes' feedback
    assert list(result.groups) == ["builtin/unidiff"] and result.chosen is None and result.sample is None
    benchmark = run_script(
        "benchmarks/clarifier_training.py", "--suite", "builtin", "--held_out", "builtin/unidiff", "--levels", "L1",
        "--episodes", "6", "--eval_every", "3", "--eval_episodes", "1", "--seeds", "0,1",
    )  # fmt: skip
    assert benchmark.returncode == 0, benchmark.stderr
    lines = benchmark.stdout.splitlines()
    per_seed = re.compile(r"seed \d: held-out coverage \d+\.\d% -> \d+\.\d% \([+-]\d+\.\d points\)")
    seeds = [line for line in lines if per_seed.match(line)]
    assert len(seeds) == 2 and lines[-1].startswith("mean gain over 2 seed(s): "), benchmark.stdout
    assert "(goal >= +10.0: " in lines[-1]


def _example():
    """The experiment as a module (a unique name: examples/train_clarifier.py is another module)."""
    name = "train_clarifier_experiment"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, EXPERIMENT)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the class is built
        spec.loader.exec_module(module)
    return sys.modules[name]


def test_the_split_keeps_a_validation_family_out_and_a_fold_holds_one_family_out_for_cross_validation(monkeypatch):
    from icae_env.families import TaskRejected, family_names, get_family

    example = _example()

    def generate(family, split, index):  # stands in for certification (minutes per family on a fresh machine)
        if index == 1:
            raise TaskRejected(f"gen/{family}/{split}/1 failed certification")

    monkeypatch.setattr(example, "generate", generate)
    held = {f for f in family_names() if get_family(f).held_out}
    rest = {f for f in family_names() if f not in held}
    training, validation, evaluated = example._split(example.Args(train_tasks=2, eval_tasks=1))
    check = max(rest)  # "auto": the last family by name
    assert {n.split("/")[1] for n in training} == rest - {check}
    assert {n.rsplit("/", 1)[1] for n in training} == {"0", "2"}  # the first certified ones: 1 was rejected
    assert len(validation) == 1 and validation[0].startswith(f"gen/{check}/train/")
    training, validation, _ = example._split(example.Args(train_tasks=1, eval_tasks=1, validation=""))
    assert {n.split("/")[1] for n in training} == rest and not validation
    assert {n.split("/")[1] for n in evaluated} == held and all("/test/" in n for n in evaluated)
    fold = example.Args(fold="csv-validator", train_tasks=1, eval_tasks=2, icae_sample=str(SAMPLE))
    training, validation, evaluated = example._split(fold)
    assert {n.split("/")[1] for n in training} == rest - {"csv-validator"} and not validation
    assert len(evaluated) == 2 and all(n.startswith("gen/csv-validator/train/") for n in evaluated)
    assert example._sample_jobs(fold, ["L1"]) == []  # the ICAE sample stays unseen in a fold
    for name in ("log-summary", "no-such-family"):
        with pytest.raises(ValueError, match="fold must be one of"):
            example._split(example.Args(fold=name))


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"features": "some"}, "features must be one of"),
        ({"indicators": "some"}, "indicators must be one of"),
        ({"cross_fit": 2}, "cross_fit must be 0 or 1"),
        ({"feedback": "some"}, "feedback must be 'bandit' or 'full'"),
        ({"value": "listwise", "feedback": "bandit"}, "value must be 'ridge' or 'listwise'"),
        ({"static_penalty": 0.0}, "static_penalty must be a finite number > 0"),
        ({"value": "ridge", "feedback": "bandit", "ridge": -1.0}, "ridge must be a finite number >= 0"),
        ({"temperature": 0.0}, "temperature must be a finite number > 0"),
        ({"grouped": -1}, "grouped must be an int >= 0, got -1"),
    ],
)
def test_a_bad_argument_is_reported_before_the_task_split_is_built(monkeypatch, option, message):
    example = _example()
    built = []
    monkeypatch.setattr(example, "_split", lambda args: built.append(args) or ([], [], []))
    with pytest.raises(ValueError, match=message):
        example.train(example.Args(**option))
    assert not built  # the split (minutes of certification on a fresh machine) was never started


def test_the_untrained_policy_is_uniform_and_features_are_standardised_over_the_candidates_left():
    example = _example()
    policy = example.Policy(terms=10)
    candidates = example.Candidates.from_prd(load_task("builtin/unidiff").prd("L1"), 10)
    raw = policy.static_features(candidates)
    assert raw.shape == (len(candidates.kinds), policy.n_raw)
    assert not raw[:, policy.n_static :].any()  # the reply-conditioned columns start at 0
    left = np.ones(len(raw), dtype=bool)
    left[0] = False  # the first generic question was asked
    phi = policy.features(raw, left)
    assert phi.shape == (len(raw), policy.theta.size) and (phi[:, -1] == 1).all()
    standardised = phi[left, policy.n_raw : 2 * policy.n_raw]
    assert np.allclose(standardised.mean(0), 0) and set(np.round(standardised.std(0), 6)) <= {0.0, 1.0}
    rng = np.random.default_rng(0)
    picks = np.bincount([policy.act(phi, left, rng) for _ in range(20_000)], minlength=len(raw))
    assert picks[0] == 0 and picks[left].min() > 0.6 * picks[left].mean()  # uniform over what is left
    policy.theta[-1] = 1.0  # a constant value: still all tied
    assert policy.act(phi, left, rng) != 0
    assert policy.n_indicators == 0 and policy.n_static == len(example.STATIC)  # no per-type indicators by default
    templates = example.Policy(terms=10, indicators="templates")
    raw = templates.static_features(candidates)
    assert templates.n_indicators == len(example.TERM_TEMPLATES)  # one per term template, none per generic question
    is_term = np.array([kind.startswith("term:") for kind in candidates.kinds])
    assert (raw[:, : templates.n_indicators].sum(1) == is_term).all()
    template = np.array([int(kind.split(":")[1]) if kind.startswith("term:") else -1 for kind in candidates.kinds])
    assert (raw[is_term, : templates.n_indicators].argmax(1) == template[is_term]).all()
    with pytest.raises(ValueError, match=r"indicators must be one of \['none', 'templates', 'all'\], got True"):
        example.Policy(terms=10, indicators=True)  # type: ignore[arg-type]
    indicated = example.Policy(terms=10, indicators="all")
    raw = indicated.static_features(candidates)
    assert indicated.n_indicators == example.N_TYPES - 1 - len(GROUP_SIZES)  # one per generic question and template
    assert example.Policy(terms=10, indicators="all", grouped=10).n_indicators == example.N_TYPES - 1  # and group size
    assert (raw[:, : indicated.n_indicators].sum(1) == (candidates.types < example.N_TYPES - 1)).all()
    phi = indicated.features(raw, left)
    indicated.theta[indicated.n_generic - 1] = 5.0  # the last generic question is now worth the most
    assert indicated.act(phi, left, rng) == indicated.n_generic - 1
    assert {indicated.act(phi, left, rng, epsilon=1.0) for _ in range(200)} != {indicated.n_generic - 1}


def test_the_terms_features_value_term_questions_by_template_and_salience_and_skip_an_asked_term():
    example = _example()
    policy = example.Policy(terms=6, indicators="templates", features="terms")
    candidates = example.Candidates.from_prd(load_task("builtin/unidiff").prd("L1"), 6)
    raw = policy.static_features(candidates)
    raw[:, policy.n_static :] = 1.0  # every reply feature set: all but "term already asked" are dropped
    left = np.ones(len(raw), dtype=bool)
    phi = policy.features(raw, left)[:, : policy.n_raw]
    kept = [policy.n_static + example.DYNAMIC.index("term already asked")]
    kept += [policy.n_indicators + example.STATIC.index("term salience"), *range(policy.n_indicators)]
    assert phi[:, kept].any(0).all() and not np.delete(phi, kept, axis=1).any()
    everything = example.Policy(terms=6, indicators="templates")
    assert everything.features(raw, left)[:, : everything.n_raw].any(0).sum() > len(kept)  # "all" keeps the rest
    # the heuristic "how exactly should <term> work?" of the most salient terms not asked yet, as weights
    policy.theta[0], policy.theta[policy.n_indicators + example.STATIC.index("term salience")] = 1.0, 0.5
    policy.theta[1] = 0.99  # the second template, a little below the first: chosen on a term not asked yet
    policy.theta[kept[0]] = -2.0
    rng, asked = np.random.default_rng(0), []
    history = example.History()
    for _ in range(3):
        raw = policy.static_features(candidates)
        raw[:, policy.n_static :] = history.features(candidates)
        action = policy.act(policy.features(raw, left), left, rng)
        left[action] = False
        history.record(candidates, action, "a point", fallback=False)
        asked.append(candidates.kinds[action])
    assert asked == ["term:0:0", "term:0:1", "term:0:2"]
    with pytest.raises(ValueError, match=r"features must be one of \['terms', 'all'\], got 'some'"):
        example.Policy(terms=6, features="some")


def test_a_grouped_message_has_its_terms_mean_salience_and_counts_them_as_asked():
    example = _example()
    policy = example.Policy(terms=6, indicators="templates", features="terms", grouped=9)
    candidates = example.Candidates.from_prd(load_task("builtin/unidiff").prd("L1"), 6, 9)
    kinds, column = candidates.kinds, policy.n_indicators + example.STATIC.index("term salience")
    raw = policy.static_features(candidates)
    assert policy.n_indicators == len(TERM_TEMPLATES) + len(GROUP_SIZES)  # one per template and group size
    pair, triple = kinds.index("group:2:0"), kinds.index("group:3:3")
    assert raw[pair, : policy.n_indicators].argmax() == len(TERM_TEMPLATES)
    assert raw[triple, : policy.n_indicators].argmax() == len(TERM_TEMPLATES) + 1
    assert raw[pair, column] == pytest.approx(1 - 0.5 / 9) and raw[triple, column] == pytest.approx(1 - 4 / 9)
    assert raw[kinds.index("term:0:4"), column] == pytest.approx(raw[triple, column])  # 4 is the mean rank of 3-5
    assert candidates.covers[triple].tolist() == [False] * 3 + [True] * 3 + [False] * 3
    history = example.History()
    history.record(candidates, kinds.index("group:2:4"), "a point", fallback=False)  # terms 4 and 5 asked
    asked = history.features(candidates)[:, example.DYNAMIC.index("term already asked")]
    assert asked[triple] == pytest.approx(2 / 3) and asked[kinds.index("term:1:5")] == 1.0
    assert asked[kinds.index("group:3:0")] == 0.0 and asked[kinds.index("term:0:3")] == 0.0
    # a grouped message worth the most, on terms not asked yet: the greedy policy asks 0-2, then 3-5, then 6-8
    policy.theta[len(TERM_TEMPLATES) + 1], policy.theta[column] = 1.0, 0.5
    policy.theta[policy.n_static + example.DYNAMIC.index("term already asked")] = -2.0
    left, history, asked_kinds = np.ones(len(kinds), dtype=bool), example.History(), []
    for _ in range(3):
        raw = policy.static_features(candidates)
        raw[:, policy.n_static :] = history.features(candidates)
        action = policy.act(policy.features(raw, left), left, np.random.default_rng(0))
        left[action] = False
        history.record(candidates, action, "a point", fallback=False)
        asked_kinds.append(kinds[action])
    assert asked_kinds == ["group:3:0", "group:3:3", "group:3:6"]
    assert example.question_type("group:3:6") == len(GENERIC_QUESTIONS) + len(TERM_TEMPLATES) + 1
    with pytest.raises(ValueError, match="grouped must be an int >= 0, got -1"):
        example.Policy(terms=6, grouped=-1)


def test_ridge_value_recovers_a_linear_reward_and_shrinks_with_the_penalty():
    example = _example()
    rng = np.random.default_rng(1)
    weights = np.array([0.5, -1.0, 2.0])
    data, heavy = example.RidgeValue(3, 1e-6), example.RidgeValue(3, 1e6)
    for phi in rng.normal(size=(200, 3)):
        data.add(phi, float(phi @ weights))
        heavy.add(phi, float(phi @ weights))
    assert data.samples == 200 and data.fit() == pytest.approx(weights, abs=1e-6)
    assert np.abs(heavy.fit()).max() < 0.01


def test_a_per_sample_penalty_keeps_its_weight_as_the_data_grows():
    example = _example()
    rng = np.random.default_rng(2)
    weights = np.array([0.5, -1.0, 2.0])
    fixed, scaled, fits = example.RidgeValue(3, 50.0), example.RidgeValue(3, 0.0, per_sample=0.5), []
    for phi in rng.normal(size=(400, 3)):
        fixed.add(phi, float(phi @ weights))
        scaled.add(phi, float(phi @ weights))
        if scaled.samples in (100, 400):
            fits.append((fixed.fit(), scaled.fit()))
    (fixed_100, scaled_100), (fixed_400, scaled_400) = fits
    expected = np.linalg.solve(scaled.gram + 0.5 * 400 * np.eye(3), scaled.target)
    assert scaled_400 == pytest.approx(expected)
    assert np.linalg.norm(fixed_400 - weights) < 0.5 * np.linalg.norm(fixed_100 - weights)  # a fixed penalty fades
    assert scaled_400 == pytest.approx(scaled_100, abs=0.15) and scaled_400 == pytest.approx(weights / 1.5, abs=0.15)
    for bad in ({"ridge": -1.0}, {"ridge": 1.0, "per_sample": float("nan")}):
        with pytest.raises(ValueError, match="must be a finite number >= 0, got"):
            example.RidgeValue(3, **bad)


def test_a_penalty_scale_shrinks_only_the_weights_it_names():
    example = _example()
    rng = np.random.default_rng(3)
    weights = np.array([0.5, -1.0, 2.0])
    scale = np.array([1.0, 1.0, 0.01])
    plain, scaled = example.RidgeValue(3, 200.0), example.RidgeValue(3, 200.0, scale=scale)
    for phi in rng.normal(size=(100, 3)):
        plain.add(phi, float(phi @ weights))
        scaled.add(phi, float(phi @ weights))
    expected = np.linalg.solve(scaled.gram + 200.0 * np.diag(scale), scaled.target)
    assert scaled.fit() == pytest.approx(expected)
    assert abs(scaled.fit()[2] - 2.0) < 0.5 * abs(plain.fit()[2] - 2.0)  # the lightly penalised weight is freer
    policy = example.Policy(terms=2, indicators="all")
    multipliers = policy.penalty_scale(static=0.3, dynamic=2.0)
    assert multipliers.shape == policy.theta.shape and multipliers[-1] == 1.0
    assert multipliers[0] == 1.0 and multipliers[policy.n_static - 1] == 0.3 and multipliers[policy.n_raw] == 1.0
    assert multipliers[policy.n_static] == 2.0 and multipliers[policy.n_raw + policy.n_static] == 2.0
    plain_policy = example.Policy(terms=2)  # no indicators: the static features come first
    assert plain_policy.penalty_scale(static=0.3, dynamic=2.0)[[0, plain_policy.n_raw]].tolist() == [0.3, 0.3]
    for bad in (np.array([1.0, 0.0, 1.0]), np.array([1.0, np.inf, 1.0]), np.ones(2)):
        with pytest.raises(ValueError, match="the penalty scale must be 3 finite numbers > 0"):
            example.RidgeValue(3, 1.0, scale=bad)
    with pytest.raises(ValueError, match="static_penalty must be a finite number > 0, got -1.0"):
        policy.penalty_scale(static=-1.0, dynamic=1.0)


def test_the_history_reads_the_replies():
    example = _example()
    candidates, history = example.Candidates.from_prd(PRD, terms=2), example.History()
    column = {name: i for i, name in enumerate(example.DYNAMIC)}
    before = history.features(candidates)
    assert not before[:, : column["closest uncovered PRD sentence"]].any()  # nothing asked, nothing answered yet
    hunks, core, term = (candidates.kinds.index(k) for k in ("sentence:1:3", "sentence:2:3", "term:0:0"))
    history.record(candidates, hunks, f"The diff tool prints hunks, one header per hunk.\n\n{NOTICE}", False)
    history.record(candidates, term, "I don't have more detail on that specific point.", True)
    features = history.features(candidates)
    assert len(history.points) == 1 and features[:, column["closest reply point"]].argmax() == hunks  # no notice
    assert features[:, column["reply points over 0.2"]].max() == features[hunks, column["reply points over 0.2"]] == 1
    assert features[hunks, column["closest answered question"]] == pytest.approx(1.0)
    assert features[term, column["closest unanswered question"]] == pytest.approx(1.0)
    same_term = [i for i, k in enumerate(candidates.kinds) if k.startswith("term:") and k.endswith(":0")]
    assert features[same_term, column["term already asked"]].tolist() == [1.0] * len(TERM_TEMPLATES)
    uncovered = features[:, column["closest uncovered PRD sentence"]]
    assert uncovered[core] > uncovered[hunks]  # the reply covered the hunks sentence, not the core one
    assert uncovered[hunks] < before[hunks, column["closest uncovered PRD sentence"]]
    assert history.truncated == [hunks] and features[hunks, column["closest truncated question"]] == pytest.approx(1.0)
    assert not features[:, column["same term as a truncated reply"]].any()  # the truncated question has no term
    other = candidates.kinds.index("term:0:1")
    history.record(candidates, other, "The buffer keeps the last lines.", False)  # answered, not truncated
    assert not history.features(candidates)[:, column["same term as a truncated reply"]].any()
    history.record(candidates, other, f"The buffer keeps the last lines.\n\n{NOTICE}", False)
    same = history.features(candidates)[:, column["same term as a truncated reply"]]
    on_term_1 = [i for i, k in enumerate(candidates.kinds) if k.startswith("term:") and k.endswith(":1")]
    assert np.flatnonzero(same).tolist() == on_term_1  # every template on the truncated question's term


def test_question_types_are_the_same_questions_in_every_prd():
    example = _example()
    generic = len(GENERIC_QUESTIONS)
    assert example.question_type("generic:3") == 3 and example.question_type("term:2:7") == generic + 2
    assert example.question_type("sentence:4:12") == example.question_type("sentence:0:3") == example.N_TYPES - 1
    candidates = example.Candidates.from_prd(PRD, terms=2)
    assert candidates.types.tolist() == [example.question_type(k) for k in candidates.kinds]


def test_type_stats_learn_yields_overlaps_and_yields_after_a_fallback_and_shrink_rare_entries():
    example = _example()
    g = len(GENERIC_QUESTIONS)
    stats = example.TypeStats(prior=0.0)
    stats.add([], (3, -1), {"C1", "C2"})  # an error question, two records
    stats.add([(3, -1, {"C1", "C2"})], (2, -1), {"C1"})  # another: all repeated
    stats.add([(3, -1, {"C1"})], (2, -1), {"C1", "C3"})  # half repeated
    stats.add([(0, -1, None)], (2, -1), None)  # after a fallback to question 0, a fallback
    stats.add([(g, 4, {"C5"})], (g + 1, 4), {"C5", "C6"})  # two templates about one term
    learned = stats.snapshot()
    assert learned.yields[3] == 2 and learned.yields[2] == pytest.approx(1.0)  # (1 + 2 + 0) / 3
    assert learned.overlap[3, 2, 0] == pytest.approx(0.75) and learned.overlap[g, g + 1, 1] == pytest.approx(0.5)
    assert learned.overlap[g, g + 1, 0] == pytest.approx(learned.overlap[5, 6, 0])  # unseen: the overall mean
    assert learned.yields_after[3, 2, 0, 1] == pytest.approx(1.5) and learned.yields_after[0, 2, 0, 0] == 0
    assert learned.yields_after[7, 2, 0, 1] == pytest.approx(learned.yields[2])  # unseen pair: the type's mean
    shrunk = example.TypeStats(prior=3.0)
    for name in ("yield", "overlap", "after"):
        setattr(shrunk, f"{name}_sums", getattr(stats, f"{name}_sums"))
        setattr(shrunk, f"{name}_counts", getattr(stats, f"{name}_counts"))
    assert shrunk.snapshot().yields[3] == pytest.approx((2 + 3 * 7 / 5) / 4)  # pulled towards the mean, 7/5
    assert example.TypeStats().snapshot().yields.tolist() == [0.0] * example.N_TYPES
    first, second = example.TypeStats(prior=0.0), example.TypeStats(prior=0.0)
    first.add([], (3, -1), {"C1", "C2"})
    second.add([(3, -1, {"C1", "C2"})], (2, -1), {"C1"})
    second.add([(3, -1, {"C1"})], (2, -1), {"C1", "C3"})
    second.add([(0, -1, None)], (2, -1), None)
    second.add([(g, 4, {"C5"})], (g + 1, 4), {"C5", "C6"})
    pooled = example.TypeStats.pooled([first, second], prior=0.0).snapshot()  # the same questions, in two parts
    for name in ("yields", "overlap", "yields_after"):
        assert np.allclose(getattr(pooled, name), getattr(learned, name)), name
    assert first.yield_counts.sum() == 1 and not example.TypeStats.pooled([]).snapshot().yields.any()
    for bad in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="prior must be a finite number >= 0, got"):
            example.TypeStats(prior=bad)


def test_training_episodes_act_on_what_the_other_families_taught(monkeypatch):
    example = _example()
    tallies: dict[str, object] = {}  # per group, the TypeStats the trainer passes
    seen = []  # (group, learned it acted on, what the other groups' tallies say now, what all say now)

    def spy(env, policy, rng, job, seed, epsilon=0.0, data=None, stats=None, mirror=None, learned=None):
        if stats is not None:
            group = example.group_of(job[0])
            tallies[group] = stats
            others = example.TypeStats.pooled([t for h, t in tallies.items() if h != group]).snapshot()
            everyone = example.TypeStats.pooled(list(tallies.values())).snapshot()
            seen.append((group, learned, others, everyone))
        return run(env, policy, rng, job, seed, epsilon, data, stats, mirror, learned=learned)

    run = example.run_episode
    monkeypatch.setattr(example, "run_episode", spy)
    args = dict(suite="builtin", episodes=24, refit_every=8, eval_every=24, eval_episodes=1, icae_sample="",
                held_out="builtin/unidiff", levels="L1", router="distilled")  # fmt: skip
    example.train(example.Args(**args))
    assert len(seen) == 24 and all(learned is None for _, learned, _, _ in seen[:8])  # nothing learned yet
    checked = 0
    for _, learned, others, everyone in (seen[8], seen[16]):  # right after a refit: the tallies it read
        if learned is not None:  # (None: the group's first episode; nothing of its own to leave out)
            assert np.allclose(learned.yields, others.yields) and not np.allclose(learned.yields, everyone.yields)
            checked += 1
    assert checked and sum(learned is not None for _, learned, _, _ in seen[8:]) >= 8
    pooled = []
    monkeypatch.setattr(example, "run_episode", lambda *a, **k: pooled.append(k.get("learned", "eval")) or run(*a, **k))
    example.train(example.Args(**args, cross_fit=0))
    assert pooled.count(None) == 24  # without cross-fitting: every training episode acts on the pooled knowledge


def test_the_history_reads_what_the_training_tasks_taught_about_the_types_asked():
    example = _example()
    candidates = example.Candidates.from_prd(PRD, terms=2)
    column = {name: i for i, name in enumerate(example.DYNAMIC)}
    n = example.N_TYPES
    overlap, yields, after = np.full((n, n, 2), 0.3), np.arange(n, dtype=float), np.ones((n, n, 2, 2))
    overlap[2, 3, 0], after[0, 3, 0, 0] = 0.9, 5.0
    history = example.History(learned=example.TypeKnowledge(overlap, yields, after))
    errors, messages, formats = (candidates.kinds.index(f"generic:{i}") for i in (2, 3, 0))
    features = history.features(candidates)
    assert not features[:, column["learned overlap with answered, max"]].any()  # nothing answered yet
    assert features[:, column["learned yield given asked"]].tolist() == candidates.types.tolist()  # the type means
    history.record(candidates, errors, "Errors are one line.", False)
    history.record(candidates, formats, "I don't have more detail on that specific point.", True)  # a fallback
    features = history.features(candidates)
    assert features[messages, column["learned overlap with answered, max"]] == pytest.approx(0.9)
    assert features[formats, column["learned overlap with answered, max"]] == pytest.approx(0.3)
    assert features[messages, column["learned yield given asked"]] == pytest.approx(3.0)  # mean of 1 and 5
    history.record(candidates, formats, "Output is one line per file.", False)
    features = history.features(candidates)
    assert features[messages, column["learned overlap with answered, sum"]] == pytest.approx(1.2)


def test_the_mirror_previews_the_env_reward_of_the_candidates():
    example = _example()
    env = ClarifyEnv(task="builtin/unidiff", budget=4)  # the default router: the cascade's cross-encoder previews too
    job = ("builtin/unidiff", "L1")
    mirror = example.Mirror.of(env, job)
    observation, _ = env.reset(seed=0, options={"task": job[0], "level": job[1]})
    candidates = example.candidates_for(observation["output"], 6, 9)
    questions = candidates.questions
    recovered: set[str] = set()
    grouped = [q for k, q in zip(candidates.kinds, questions, strict=True) if k.startswith("group:3:")]
    asked = [grouped[0], *questions[:2], grouped[3]]  # grouped messages, and single questions
    previewed = [*asked, *questions[-3:]]  # and sentence questions never asked (a few: each may need the encoder)
    for question in asked:
        preview = mirror.rewards(previewed, recovered)
        _, reward, _, _, info = env.step(question)
        assert preview[previewed.index(question)] == pytest.approx(reward)
        assert mirror.agent.ask(question).constraint_ids == info["constraint_ids"]
        assert len(info["constraint_ids"]) <= MAX_POINTS  # three questions in one message: three points at most
        recovered.update(info["recovered"])
    assert not mirror.rewards(questions, recovered).any()  # the budget is spent: the env refuses at no cost
    records = load_task(job[0]).user_agent_data("L1").hidden_constraints
    assert mirror.targets == frozenset(c.constraint_id for c in records if c.is_task_specific)
    env.close()


def test_full_feedback_adds_every_candidate_left_and_rejects_an_unknown_mode():
    example = _example()
    env, job = ClarifyEnv(task="builtin/unidiff", budget=3, router="distilled"), ("builtin/unidiff", "L2")
    policy = example.Policy(6)
    bandit, full = (example.RidgeValue(policy.theta.size, 1.0) for _ in range(2))
    rng = np.random.default_rng(0)
    example.run_episode(env, policy, rng, job, 0, data=bandit)
    example.run_episode(env, policy, rng, job, 0, data=full, mirror=example.Mirror.of(env, job))
    observation, _ = env.reset(seed=0, options={"task": job[0], "level": job[1]})
    n = len(example.candidates_for(observation["output"], 6).questions)
    assert bandit.samples == 3 and full.samples == n + (n - 1) + (n - 2)
    env.close()
    args = dict(suite="builtin", episodes=2, eval_every=2, refit_every=2, eval_episodes=1, icae_sample="",
                held_out="builtin/unidiff", router="distilled")  # fmt: skip
    assert example.train(example.Args(**args, feedback="full")).curve[-1][0] == 2
    with pytest.raises(ValueError, match="feedback"):
        example.train(example.Args(**args, feedback="oracle"))
    with pytest.raises(ValueError, match="cross_fit must be 0 or 1, got 2"):  # a flag: 0 or 1, nothing else
        example.train(example.Args(**args, cross_fit=2))
    with pytest.raises(ValueError, match="indicators must be one of"):
        example.train(example.Args(**args, indicators="1"))


def test_listwise_value_ranks_the_best_candidate_of_each_turn_first():
    example = _example()
    rng = np.random.default_rng(2)
    weights = np.array([1.0, -2.0, 0.5])
    fitted, heavy = example.ListwiseValue(3, 0.01, 1e-4), example.ListwiseValue(3, 0.01, 1e4)
    turns = [rng.normal(size=(int(rng.integers(3, 9)), 3)) for _ in range(300)]
    for phi in turns:
        fitted.add_many(phi, phi @ weights / 10)
        heavy.add_many(phi, phi @ weights / 10)
    theta = fitted.fit()
    assert fitted.samples == sum(len(phi) for phi in turns)
    assert np.mean([np.argmax(phi @ theta) == np.argmax(phi @ weights) for phi in turns]) > 0.98
    assert theta @ weights / np.linalg.norm(theta) / np.linalg.norm(weights) > 0.999  # the direction is recovered
    assert np.abs(heavy.fit()).max() < 0.01 and not example.ListwiseValue(3, 0.01, 1.0).fit().any()
    with pytest.raises(ValueError, match="temperature"):
        example.ListwiseValue(3, 0.0, 1.0)
