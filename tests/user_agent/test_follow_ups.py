"""Follow-ups: the next points of a topic, ICAE's more-than-three-questions rule, determinism and pickling."""

import pickle

import pytest

from icae_env.tasks.models import HiddenConstraint, UserAgentData
from icae_env.user_agent import GroundedUserAgent
from icae_env.user_agent.grounded import ALL_GIVEN, DIGEST, NOTICE, interleave, is_follow_up, split_questions

TOPIC = ("retry policy part {i}", "retry rule {i}", "backoff retry {i}")


def _record(cid, triggers, response):
    return HiddenConstraint(constraint_id=cid, trigger_keywords=triggers, oracle_response=response)


def _data():
    retry = [_record(f"C00{i}", tuple(t.format(i=i) for t in TOPIC), f"Retry fact {i}.") for i in range(1, 6)]
    other = [
        _record("C006", ("how are cycles reported", "cycle error format", "loop detection"), "Cycles are errors."),
        _record("C007", ("what is the output format", "how is the result printed", "stdout layout"), "One per line."),
    ]
    return UserAgentData(
        task_id="t",
        level="L1",
        hidden_constraints=(*retry, *other),
        context_pointers=(),
        golden_api_signature="",
        fallback_response="No idea, sorry.",
    )


def _transcript(agent, questions):
    return [agent.ask(q) for q in questions]


def _ranked(agent, question="retry policy rule backoff"):
    """The router's order of the five retry records for ``question`` (ties may go either way between routers)."""
    ranked = tuple(agent.documents[m.index].doc_id for m in agent.router.route(question))
    assert sorted(ranked) == ["C001", "C002", "C003", "C004", "C005"]
    return ranked


def test_three_questions_on_one_topic_reveal_all_five_in_order_without_repeating():
    agent = GroundedUserAgent(_data())
    ranked = _ranked(agent)
    first, second, third = _transcript(agent, ["retry policy rule backoff", "retry policy rule backoff", "what else?"])
    assert first.constraint_ids == ranked[:3] and first.truncated and first.text.endswith(NOTICE)
    assert second.constraint_ids == ranked[3:] and not second.truncated and NOTICE not in second.text
    assert second.text == "\n\n".join(f"Retry fact {cid[-1]}." for cid in ranked[3:])
    assert third.constraint_ids == () and third.text == ALL_GIVEN and not third.fallback
    revealed = [cid for reply in (first, second, third) for cid in reply.constraint_ids]
    assert revealed == list(ranked)
    assert agent.stats().fallbacks == 0 and agent.stats().triggers_hit == tuple(revealed)


def test_a_bare_follow_up_continues_the_last_topic():
    agent = GroundedUserAgent(_data())
    ranked = _ranked(agent)
    assert agent.ask("retry policy rule backoff").truncated
    more = agent.ask("tell me more")
    assert more.constraint_ids == ranked[3:]
    assert agent.ask("what is the weather like today?").fallback  # an off-topic question still gets the fallback


def test_the_same_transcript_gives_the_same_replies_after_pickling():
    questions = ["retry policy rule backoff", "how are cycles reported", "retry policy rule backoff", "what else?"]
    agent = GroundedUserAgent(_data())
    replies = _transcript(agent, questions)
    assert _transcript(GroundedUserAgent(_data()), questions) == replies
    fresh = pickle.loads(pickle.dumps(GroundedUserAgent(_data())))
    assert _transcript(fresh, questions) == replies
    midway = GroundedUserAgent(_data())
    head = _transcript(midway, questions[:2])
    clone = pickle.loads(pickle.dumps(midway))
    assert head + _transcript(clone, questions[2:]) == replies
    assert _transcript(midway, questions[2:]) == replies[2:]


def test_more_than_three_questions_answer_the_first_three_then_ask_to_digest():
    agent = GroundedUserAgent(_data())
    reply = agent.ask("How are cycles reported? What is the output format? Retry rule 1? Retry rule 2?")
    assert reply.constraint_ids == ("C006", "C007", "C001")
    assert reply.text.endswith(DIGEST) and reply.remaining == 15 and len(agent.log.turns) == 1
    later = agent.ask("Retry rule 2?")
    assert later.constraint_ids[0] == "C002"


def test_reset_forgets_the_given_points():
    agent = GroundedUserAgent(_data())
    first = agent.ask("retry policy rule backoff")
    agent.reset()
    assert agent.ask("retry policy rule backoff") == first


@pytest.mark.parametrize(
    ("message", "parts"),
    [
        ("how are cycles reported?", ["how are cycles reported"]),
        ("A? B?\nC\n1. D\n- E", ["A", "B", "C", "D", "E"]),
        ("???", ["???"]),
    ],
)
def test_split_questions(message, parts):
    assert split_questions(message) == parts


def test_follow_up_words_and_interleave():
    assert [is_follow_up(q) for q in ("what else?", "anything more?", "continue", "what about cycles?")] == [
        True,
        True,
        True,
        False,
    ]
    assert interleave([[1, 2, 3], [4, 1], [5]], 3) == [1, 4, 5]
    assert interleave([[1, 2, 3], [4, 1], []], 5) == [1, 4, 2, 3]


def test_peek_previews_a_reply_without_asking():
    agent = GroundedUserAgent(_data(), budget=3)
    ranked = _ranked(agent)
    assert agent.peek("retry policy rule backoff") == ranked[:3]
    assert agent.peek("what is the weather like today?") == ()
    assert agent.remaining == 3 and not agent.log.turns and not agent.given
    first = agent.ask("retry policy rule backoff")
    assert first.constraint_ids == ranked[:3]
    assert agent.peek("how are cycles reported") == ("C006",)
    assert agent.peek("tell me more") == ranked[3:]  # the last topic's next points, as ask would give
    assert agent.peek("how are cycles reported") == ("C006",)
    assert agent.ask("tell me more").constraint_ids == ranked[3:]  # peeking another topic did not move the topic
    agent.ask("how are cycles reported")
    assert agent.remaining == 0 and agent.peek("what is the output format") == ()  # nothing once the budget is spent
    with pytest.raises(TypeError):
        agent.peek(3)
