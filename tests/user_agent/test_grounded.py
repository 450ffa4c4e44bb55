"""The grounded User Agent: reply rules, budget, levels, metrics, determinism."""

import pickle

import pytest

from icae_env.tasks import load_task
from icae_env.tasks.models import ContextPointer, HiddenConstraint, UserAgentData
from icae_env.user_agent import GroundedUserAgent, UserAgent
from icae_env.user_agent.grounded import NOTICE, REFUSAL, make_router


def _record(cid, triggers, response, kind="behavior"):
    return HiddenConstraint(constraint_id=cid, kind=kind, trigger_keywords=triggers, oracle_response=response)


def _data(**overrides):
    base = dict(
        task_id="t",
        level="L1",
        hidden_constraints=(
            _record(
                "C001",
                ("how are cycles reported", "circular dependency error", "loop detection"),
                "Cycles print `error: cycle: a -> b -> a`.",
            ),
            _record(
                "C002",
                ("what is the output format", "how is the result printed", "stdout layout"),
                "One package per line.",
            ),
            _record(
                "TC_feature1",
                ("test cases for feature 1", "show me feature1 tests", "feature1 examples"),
                '{"cases": []}',
                kind="test_cases",
            ),
        ),
        context_pointers=(ContextPointer(vague_reference="the memo table", actual_meaning="the cache argument"),),
        golden_api_signature="resolve(packages, root) -> list[str]",
        fallback_response="No idea, sorry.",
    )
    base.update(overrides)
    return UserAgentData(**base)


def test_protocol_and_basic_reply():
    agent = GroundedUserAgent(_data(), budget=4)
    assert isinstance(agent, UserAgent)
    reply = agent.ask("How are circular dependencies reported?")
    assert reply.constraint_ids[0] == "C001"
    assert reply.text.startswith("Cycles print `error: cycle: a -> b -> a`.")
    assert (reply.fallback, reply.remaining, reply.refused) == (False, 3, False)


def test_answers_verbatim_from_records_pointers_and_signature():
    agent = GroundedUserAgent(_data(), budget=10)
    assert agent.ask("what is the function signature of the api?").text == (
        "The expected interface is: resolve(packages, root) -> list[str]"
    )
    pointer = agent.ask("what do you mean by the memo table?")
    assert pointer.constraint_ids == ("CONTEXT:0",) and "the cache argument" in pointer.text
    assert agent.ask("show me the test cases for feature 1").text == '{"cases": []}'


def test_fallback_is_verbatim_and_counts():
    agent = GroundedUserAgent(_data(), budget=2)
    reply = agent.ask("what is the weather like in Paris today?")
    assert (reply.text, reply.fallback, reply.constraint_ids, reply.remaining) == ("No idea, sorry.", True, (), 1)
    assert agent.stats().fallbacks == 1


def test_budget_refusal_is_not_counted():
    agent = GroundedUserAgent(_data(), budget=1)
    agent.ask("how are cycles reported")
    refused = agent.ask("how is the result printed")
    assert refused.refused and refused.text == REFUSAL.format(budget=1) and refused.remaining == 0
    assert agent.stats().turns_used == 1
    agent.reset()
    assert agent.remaining == 1 and agent.stats().turns_used == 0


def test_at_most_three_points_then_a_notice():
    records = tuple(
        _record(f"C00{i}", (f"retry policy part {i}", f"retry rule {i}", f"backoff retry {i}"), f"Retry fact {i}.")
        for i in range(1, 6)
    )
    agent = GroundedUserAgent(_data(hidden_constraints=records, context_pointers=(), golden_api_signature=""))
    reply = agent.ask("retry policy rule backoff")
    assert len(reply.constraint_ids) == 3 and reply.truncated
    assert reply.text.endswith(NOTICE) and reply.text.count("Retry fact") == 3


def test_only_the_levels_records_are_used():
    task = load_task("builtin/token-bucket")
    l1 = GroundedUserAgent.from_task(task, level="L1")
    l2 = GroundedUserAgent.from_task(task, level="L2")
    revealed = {r.constraint_id for r in task.level("L1").hidden_constraints} - {
        r.constraint_id for r in task.level("L2").hidden_constraints
    }
    assert revealed
    record = next(r for r in task.level("L1").hidden_constraints if r.constraint_id in revealed)
    assert record.constraint_id in l1.ask(record.trigger_keywords[0]).constraint_ids
    assert record.constraint_id not in l2.ask(record.trigger_keywords[0]).constraint_ids
    ground = GroundedUserAgent.from_task(task, level="ground")
    assert ground.ask(record.trigger_keywords[0]).constraint_ids in ((), ("API_SIGNATURE",))


def test_metrics_follow_icae_formulas():
    agent = GroundedUserAgent(_data(), budget=8)
    for question in ("how are cycles reported", "loop detection", "what is the weather", "stdout layout"):
        agent.ask(question)
    stats = agent.stats()
    assert stats.triggers_hit == ("C001", "C002")
    assert stats.constraint_coverage == pytest.approx(100 * 2 / 3)
    assert stats.task_coverage == pytest.approx(100.0)  # TC records are not task-specific
    assert stats.fallback_rate == pytest.approx(25.0)
    assert stats.budget_usage_rate == pytest.approx(50.0)
    assert stats.missed_constraints == ("TC_feature1",) and stats.total_constraints == 3
    assert [t.turn for t in agent.log.turns] == [1, 2, 3, 4]
    assert agent.log.turns[2].fallback_triggered and agent.log.turns[3].remaining == 4


def test_deterministic_and_picklable():
    task = load_task("builtin/semver-range")
    questions = [r.trigger_keywords[1] for r in task.level("L1").hidden_constraints] + ["tell me a joke"]
    first = GroundedUserAgent.from_task(task, budget=100)
    answers = [first.ask(q) for q in questions]
    clone = pickle.loads(pickle.dumps(GroundedUserAgent.from_task(task, budget=100)))
    assert [clone.ask(q) for q in questions] == answers
    again = GroundedUserAgent.from_task(task, budget=100)
    assert [again.ask(q) for q in questions] == answers


def test_bad_arguments():
    with pytest.raises(ValueError, match="budget must be an int >= 0, got -1"):
        GroundedUserAgent(_data(), budget=-1)
    with pytest.raises(ValueError, match="did you mean 'lexical'"):
        make_router("lexicl", ())
    with pytest.raises(TypeError, match="question must be a str"):
        GroundedUserAgent(_data()).ask(None)  # type: ignore[arg-type]
    assert GroundedUserAgent(_data()).ask("").fallback
