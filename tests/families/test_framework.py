"""The family framework on its reference family: purity, splits, distinctness, knobs, names, distributions, packs."""

from __future__ import annotations

import dataclasses
import json
import re

import numpy as np
import pytest
from family_properties import empty_generation_cache

import icae_env
import icae_env.families.certify as certify_module
from icae_env.cli.generate import write_pack_files
from icae_env.errors import ArgumentError, TaskNotFoundError, UnknownNameError
from icae_env.families import Knobs, TaskDistribution, TaskRejected, generate, get_family, task_name
from icae_env.families.certify import CERTIFY_ROUTERS, paraphrase_reach, reach_metric
from icae_env.families.generation import family_version, parse_name
from icae_env.families.keys import KeySpace, distance, stream
from icae_env.families.plan import behaviour_key, plan_task
from icae_env.registration import DEFAULT_ROUTER
from icae_env.tasks import load_task
from icae_env.tasks.pack import load_pack

FAMILY = "ledger-report"


def _fresh(index: int, split: str = "train", knobs: Knobs | None = None):
    with empty_generation_cache():  # generation is pure: a second run from scratch must give the same pack
        return generate(FAMILY, split, index, knobs)


def test_generation_is_a_pure_function_of_its_identity():
    first, second = _fresh(5), _fresh(5)
    assert first.files == second.files and first.certificate.ok
    assert first.files != _fresh(6).files
    assert stream(FAMILY, "train", 5, "x") != stream(FAMILY, "train", 6, "x") != stream(FAMILY, "train", 5, "y")


def test_every_test_key_is_three_decisions_from_every_train_key():
    family = get_family(FAMILY)
    space = KeySpace(family, 5, 4)
    train = [k for _, k in zip(range(300), space.walk("train"), strict=False)]
    test = [k for _, k in zip(range(100), space.walk("test"), strict=False)]
    assert len(train) == 300 and len(test) == 100
    assert min(distance(a, b) for a in train for b in test) >= 3


@pytest.mark.slow
def test_a_thousand_tasks_behave_differently_and_splits_share_no_hidden_case():
    family, knobs = get_family(FAMILY), Knobs()
    keys = [behaviour_key(family, "train", i, knobs) for i in range(1000)]
    assert len(set(keys)) == 1000
    hidden = {}
    for split, count in (("train", 60), ("test", 30)):
        cases = set()
        for i in range(count):
            try:
                task = generate(FAMILY, split, i).task
            except TaskRejected:
                continue
            cases |= {
                json.dumps([c.input, c.expected_text])
                for t in ("native", "enhanced")
                for f in task.tests.tier(t)
                for c in f.cases
            }
        hidden[split] = cases
    assert hidden["train"] and not hidden["train"] & hidden["test"]


def test_knobs_shape_the_task_and_are_recorded():
    knobs = Knobs(features=4, surprise=2, public_per_feature=2, budget=12)
    generated = generate(FAMILY, "train", 0, knobs)
    meta = generated.task.meta
    assert (
        meta["knobs"]["surprise"] == 2 and len(meta["features"]) == 4 and meta["canary"].startswith("icae-gen-canary:")
    )
    family = get_family(FAMILY)
    assert sum(v != family.decision(n).naive for n, v in meta["decisions"].items()) == 2
    assert all(len(f.cases) >= 1 for f in generated.task.tests.public)
    assert (
        generated.task.origin
        == task_name(FAMILY, "train", 0, knobs)
        == "gen/ledger-report/train/0?budget=12&features=4&public_per_feature=2&surprise=2"
    )
    assert meta["canary"] in generated.files["task.yaml"] and meta["canary"] in generated.files["golden/README.md"]
    assert generated.certificate.metrics["questions_needed"] <= 12
    with pytest.raises(TaskRejected, match="budget: .* records to ask for .*budget 2"):
        generate(FAMILY, "train", 0, Knobs(features=4, surprise=2, public_per_feature=2, budget=2))


def test_names_load_without_disk_and_errors_are_clear(tmp_path):
    task = load_task("gen/ledger-report/train/2?features=4")
    assert task.golden_dir is None and task.golden_files and task.id == "ledger-report-v2-train-2"
    assert parse_name("gen/ledger-report/test/3")[:3] == ("ledger-report", "test", 3)
    with pytest.raises(ArgumentError, match=r"gen/<family>\[@<version>\]/<split>/<index>"):
        load_task("gen/ledger-report/train/x")
    with pytest.raises(UnknownNameError, match="unknown task family 'ledgr-report'.*did you mean 'ledger-report'"):
        load_task("gen/ledgr-report/train/0")
    with pytest.raises(ArgumentError, match="knob surprise"):
        load_task("gen/ledger-report/train/0?surprise=-1")
    with pytest.raises(TaskNotFoundError, match="not one task"):
        load_task("gen/ledger-report/train")
    with pytest.raises(ArgumentError, match="knob surprise"):
        load_task("gen/ledger-report/train/0?surprise=0")  # every decision at its default: never certifiable
    one_key = Knobs(features=5, domain=2, surprise=len(get_family(FAMILY).decisions))  # one value per decision
    none_left = r"has (1 task\(s\) \(indices 0..0\)|no task at all) in its train split"
    with pytest.raises(TaskNotFoundError, match=none_left):
        plan_task(get_family(FAMILY), "train", 5, one_key)


def test_a_written_pack_loads_to_the_same_task(tmp_path):
    generated = generate(FAMILY, "test", 1)
    pack = write_pack_files(generated.files, tmp_path / generated.plan.task_id)
    from_disk = load_pack(pack)
    skip = {"golden_dir", "golden_files", "origin"}
    assert from_disk.model_dump(exclude=skip) == generated.task.model_dump(exclude=skip)
    assert (pack / "golden" / "rcb_tests" / "test.sh").stat().st_mode & 0o111


def test_an_env_draws_from_a_distribution_with_its_seeded_generator():
    dist = TaskDistribution(families=(FAMILY,), split="train", knobs={"features": (3, 5)})
    env = icae_env.make("icae/Clarify-v0", task=dist, budget=3)
    try:
        drawn = [env.reset(seed=s)[1]["task"] for s in (0, 1, 2, 0)]
        assert drawn[0] == drawn[3] and len(set(drawn[:3])) == 3
        *_, info = env.step("how should amounts be formatted")
        assert info["constraint_ids"]
    finally:
        env.close()
    named = icae_env.make("icae/ProjectBuild-v0", task="gen/ledger-report/test?features=4")
    try:
        _, info = named.reset(seed=0)
        assert info["task"].startswith(f"ledger-report-v{get_family(FAMILY).version}-test-")
        assert named.unwrapped.task.meta["split"] == "test"
    finally:
        named.close()
    assert dist.sample(np.random.default_rng(7)).id == dist.sample(np.random.default_rng(7)).id


def test_each_l3_record_answers_with_the_sentence_its_prd_masks():
    generated = generate("retry-schedule", "train", 0)
    family, plan, task = get_family("retry-schedule"), generated.plan, generated.task
    assert plan.masked
    l3, ground = task.prd("L3"), task.prd("ground")
    records = {r.constraint_id: r.oracle_response for r in task.user_agent_data("L3").hidden_constraints}
    for i, name in enumerate(plan.masked, start=1):
        value = family.decision(name).value(plan.values[name])
        sentence = value.ground.format(**plan.skin.words)
        assert records[f"L3_{i:03d}"] == sentence  # a sentence, not the bare literal
        assert sentence in ground and sentence not in l3
        assert sentence.replace(value.literal.format(**plan.skin.words), "(ask for it)") in l3


def test_paraphrase_reach_is_the_certificates_figure_and_asks_any_router():
    generated = generate(FAMILY, "train", 0)
    family = get_family(FAMILY)
    reach = paraphrase_reach(family, generated.plan, generated.task)
    formats = {f"format {r.key}": r for r in family.formats_of(generated.plan.features)}
    assert formats and set(reach) == set(generated.plan.hidden) | set(formats)
    banks = {
        **{d: family.decision(d).paraphrases for d in generated.plan.hidden},
        **{k: r.paraphrases for k, r in formats.items()},
    }
    assert all(len(hits) == len(banks[name]) for name, hits in reach.items())
    hits = [hit for per in reach.values() for hit in per]
    assert sum(hits) / len(hits) == generated.certificate.metrics["paraphrase_top3"]
    with_default = paraphrase_reach(family, generated.plan, generated.task, DEFAULT_ROUTER)
    assert set(with_default) == set(reach)
    default_hits = [hit for per in with_default.values() for hit in per]
    assert sum(default_hits) / len(default_hits) == generated.certificate.metrics[reach_metric(DEFAULT_ROUTER)]
    with pytest.raises(UnknownNameError):
        paraphrase_reach(family, generated.plan, generated.task, "no-such-router")


def test_certification_asks_every_certify_router_and_the_default_is_one(monkeypatch):
    """The env asks the default router, so certification asks it too; a failure with any of the routers counts."""
    assert DEFAULT_ROUTER in CERTIFY_ROUTERS and CERTIFY_ROUTERS[0] == "lexical"
    generated = generate(FAMILY, "train", 0)
    family, plan, task = get_family(FAMILY), generated.plan, generated.task
    assert generated.certificate.ok
    assert set(generated.certificate.metrics) >= {reach_metric(r) for r in CERTIFY_ROUTERS}

    class Silent:  # a router that never answers: every routing check must fail under its name
        def route(self, question: str) -> list:
            return []

    real = certify_module.make_router
    monkeypatch.setattr(certify_module, "CERTIFY_ROUTERS", (*CERTIFY_ROUTERS, "silent"))
    monkeypatch.setattr(
        certify_module,
        "make_router",
        lambda name, *args, **kw: Silent() if name == "silent" else real(name, *args, **kw),
    )
    cert = certify_module.Certificate()
    certify_module._routing(family, plan, task, cert)
    formats = family.formats_of(plan.features)
    triggers = sum(len(family.decision(d).triggers) for d in plan.hidden) + sum(len(r.triggers) for r in formats)
    assert len(cert.failures) == triggers + len(plan.hidden) + len(formats)
    assert all(f.startswith("routing (silent): ") for f in cert.failures)
    assert all(family.decision(d).paraphrases for d in plan.hidden)
    assert cert.metrics[reach_metric("silent")] == 0.0
    assert cert.metrics["paraphrase_top3"] == generated.certificate.metrics["paraphrase_top3"]


def test_a_pinned_version_is_checked_never_silently_another_task():
    family = get_family(FAMILY)
    assert parse_name(f"gen/{FAMILY}@{family.version}/train/3?domain=2") == (FAMILY, "train", 3, Knobs(domain=2))
    full = family_version(family)
    assert full.startswith(f"{family.version}+") and parse_name(f"gen/{FAMILY}@{full}/test/0")[2] == 0
    with pytest.raises(TaskNotFoundError, match=rf"another version .* generates {FAMILY}@{re.escape(full)}"):
        parse_name(f"gen/{FAMILY}@{family.version - 1}/train/0")
    with pytest.raises(TaskNotFoundError, match="another version"):
        parse_name(f"gen/{FAMILY}@{family.version}+00000000/train/0")
    assert plan_task(family, "train", 0, Knobs()).task_id == f"{FAMILY}-v{family.version}-train-0"


def test_plan_text_fills_skin_words_and_writes_an_before_a_vowel_sound():
    plan = plan_task(get_family(FAMILY), "train", 0, Knobs())
    words = {**plan.skin.words, "item": "image"}
    plan = dataclasses.replace(plan, skin=dataclasses.replace(plan.skin, words=words))
    assert plan.text("A {item} and a order") == "An image and an order"
    assert plan.text("a one-line note, a euro, a user") == "a one-line note, a euro, a user"
