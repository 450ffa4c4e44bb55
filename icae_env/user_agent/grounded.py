"""The grounded User Agent: answers only from a level's User Agent Data, within a question budget."""

from __future__ import annotations

import inspect
import re
from collections.abc import Mapping, Sequence
from typing import Any

from icae_env.core import InteractionStats, Turn
from icae_env.errors import ArgumentError, ArgumentTypeError, ConfigError
from icae_env.registration import DEFAULT_ROUTER, ROUTERS, resolve, unknown
from icae_env.tasks.models import Task, UserAgentData
from icae_env.user_agent.base import Document, Match, Reply, Router
from icae_env.user_agent.features.text import STOPWORDS
from icae_env.user_agent.metrics import InteractionLog

__all__ = [
    "GroundedUserAgent",
    "MemoRouter",
    "ROUTERS",
    "ENV_ROUTER_DEFAULTS",
    "RouterOptionError",
    "check_router",
    "check_router_options",
    "env_router_options",
    "make_router",
    "router_failures",
    "documents_for",
    "interleave",
    "is_follow_up",
    "split_questions",
    "user_agent_for",
    "ALL_GIVEN",
    "DIGEST",
    "MAX_POINTS",
    "MAX_QUESTIONS",
    "NOTICE",
    "REFUSAL",
]

MAX_POINTS = 3
MAX_QUESTIONS = 3
DEFAULT_BUDGET = 16
NOTICE = "There is more on this topic. Please digest these points first, then ask again about the rest."
DIGEST = (
    "You asked more than three questions at once; I answered the first three. Please digest these points first, "
    "then ask the rest."
)
ALL_GIVEN = "I have already told you everything I have on this; see my earlier answers."
REFUSAL = "You have used all {budget} questions; no more clarifications are available. Proceed with what you have."
SIGNATURE_TRIGGERS = (
    "what is the api",
    "what is the function signature",
    "what interface should the library expose",
    "what are the parameters and return type of the main function",
    "how should the public function be named and called",
    "what does the method signature look like",
)


def documents_for(data: UserAgentData) -> tuple[Document, ...]:
    """Return the routable documents of one level: its hidden records, context pointers and API signature."""
    docs = [
        Document(r.constraint_id, r.kind.value, tuple(r.trigger_keywords), r.oracle_response)
        for r in data.hidden_constraints
    ]
    for i, pointer in enumerate(data.context_pointers):
        phrase = pointer.vague_reference
        triggers = (phrase, f"what do you mean by {phrase}", f"what does {phrase} refer to")
        answer = f'By "{phrase}" I mean: {pointer.actual_meaning}'
        docs.append(Document(f"CONTEXT:{i}", "pointer", triggers, answer, is_constraint=False))
    if data.golden_api_signature.strip():
        answer = f"The expected interface is: {data.golden_api_signature}"
        docs.append(Document("API_SIGNATURE", "signature", SIGNATURE_TRIGGERS, answer, is_constraint=False))
    return tuple(docs)


_LIST_MARKER = re.compile(r"(?m)^\s*(?:\d+[.)]|[-*\u2022])\s+")
_QUESTION_BREAK = re.compile(r"\?+|\n+")
_FOLLOW_UP = frozenset(
    "more else rest remaining remain next other others further continue go on points point additional anything "
    "topic".split()
)


def split_questions(message: str) -> list[str]:
    """Return the questions of one message: its parts between question marks, line breaks and list markers.

    Example:
        >>> split_questions("How are cycles reported? And missing packages? - the cache")
        ['How are cycles reported', 'And missing packages', '- the cache']
    """
    parts = [p.strip() for p in _QUESTION_BREAK.split(_LIST_MARKER.sub("\n", message))]
    return [p for p in parts if any(c.isalnum() for c in p)] or [message]


def is_follow_up(question: str) -> bool:
    """Return whether ``question`` only asks for more of the same ("what else?", "tell me more")."""
    words = [w for w in re.findall(r"[a-z]+", question.lower()) if w not in STOPWORDS]
    return bool(words) and all(w in _FOLLOW_UP for w in words)


def interleave(lists: Sequence[Sequence[int]], limit: int) -> list[int]:
    """Return up to ``limit`` distinct items taking the lists' items in turn (first of each, then second ...)."""
    chosen: list[int] = []
    for rank in range(max((len(x) for x in lists), default=0)):
        for items in lists:
            if rank < len(items) and items[rank] not in chosen and len(chosen) < limit:
                chosen.append(items[rank])
    return chosen


def check_router(name: Any) -> str:
    """Return ``name`` when it is a registered router (of :data:`ROUTERS`).

    Raises:
        UnknownNameError: naming the registered routers (with a suggestion).
    """
    if name not in ROUTERS:
        raise unknown("router", name, list(ROUTERS))
    return str(name)


#: Options every environment and the Oracle server give a router unless told otherwise: a failing ``llm`` endpoint
#: gives the fallback reply (counted, see :func:`router_failures`) instead of raising out of ``step``.
ENV_ROUTER_DEFAULTS: dict[str, dict[str, Any]] = {"llm": {"on_error": "fallback"}}


class RouterOptionError(ConfigError):
    """A router option the router does not take; the message names the router and the options it accepts."""


def check_router_options(name: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return ``options`` as a dict when router ``name`` takes every one of them as a keyword argument.

    A router class may check their values too, with a static ``check_options(options)`` (the ``llm`` router
    resolves its endpoint there, so a missing base URL fails before the first question).

    Raises:
        UnknownNameError: for an unknown router name.
        RouterOptionError: for an option the router's constructor does not take (naming the accepted ones).
        ArgumentTypeError: when ``options`` is not a mapping with string keys.
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping) or not all(isinstance(k, str) for k in options):
        raise ArgumentTypeError(f"router_options must be a mapping of option names to values, got {options!r}")
    router_class = resolve("router", check_router(name))
    params = list(inspect.signature(router_class).parameters.values())[1:]  # after ``documents``
    if not any(p.kind is p.VAR_KEYWORD for p in params):
        accepted = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
        unknown_keys = sorted(set(options) - set(accepted))
        if unknown_keys:
            raise RouterOptionError(
                f"router {name!r} takes no option {', '.join(map(repr, unknown_keys))}; it accepts {accepted}"
            )
    check = getattr(router_class, "check_options", None)
    if callable(check):
        check(dict(options))
    return dict(options)


def env_router_options(name: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return the checked ``options`` over :data:`ENV_ROUTER_DEFAULTS` of router ``name`` (what environments use).

    Raises:
        UnknownNameError: for an unknown router name.
        RouterOptionError: for an option the router does not take.
    """
    return check_router_options(name, {**ENV_ROUTER_DEFAULTS.get(str(name), {}), **(options or {})})


def router_failures(router: Any) -> int:
    """Return how many questions ``router`` (or the router it wraps) answered with no match because it failed.

    Routers that cannot fail count 0; the ``llm`` router counts its :attr:`fallbacks`.
    """
    while hasattr(router, "inner"):
        router = router.inner
    return int(getattr(router, "fallbacks", 0))


def make_router(name: str, documents: tuple[Document, ...], **options: Any) -> Router:
    """Build router ``name`` over ``documents``, with ``options`` as its keyword arguments.

    Raises:
        UnknownNameError: for an unknown router name (a ``ValueError``, with a suggestion).
        RouterOptionError: for an option the router does not take.
        DependencyNotInstalled: when the router's extra is missing.
    """
    check_router_options(name, options)
    return resolve("router", check_router(name))(documents, **options)


class MemoRouter:
    """Wraps a router and remembers its answer to each question (exact: routers are deterministic).

    Args:
        inner: The router to ask on a miss.
        max_entries: Answers kept; the memo is emptied when it is full.
    """

    def __init__(self, inner: Router, max_entries: int = 65_536) -> None:
        if not isinstance(max_entries, int) or max_entries < 1:
            raise ArgumentError(f"max_entries must be an int >= 1, got {max_entries!r}")
        self.inner, self.max_entries = inner, max_entries
        self.name = inner.name
        self._memo: dict[str, tuple[Match, ...]] = {}

    def route(self, question: str) -> list[Match]:
        """Return the inner router's matches for ``question``, computing them once (a failed routing is not kept)."""
        hit = self._memo.get(question)
        if hit is None:
            if len(self._memo) >= self.max_entries:
                self._memo.clear()
            failures = router_failures(self.inner)
            hit = tuple(self.inner.route(question))
            if router_failures(self.inner) == failures:
                self._memo[question] = hit
        return list(hit)


def user_agent_for(
    data: UserAgentData,
    budget: int,
    router: str,
    memo_size: int = 0,
    router_options: Mapping[str, Any] | None = None,
) -> GroundedUserAgent:
    """Build the grounded User Agent of one level, its router memoised when ``memo_size`` > 0.

    Args:
        data: The level's User Agent Data.
        budget: Questions allowed.
        router: A registered router name.
        memo_size: Router answers remembered (0: none).
        router_options: Keyword arguments of the router's constructor.
    """
    routing: Router = make_router(router, documents_for(data), **dict(router_options or {}))
    if memo_size:
        routing = MemoRouter(routing, memo_size)
    return GroundedUserAgent(data, budget=budget, router=routing)


class GroundedUserAgent:
    """Answers clarification questions from one level's hidden records, pointers and API signature only.

    A reply gives at most :data:`MAX_POINTS` points (documents), each verbatim. Points already given in this session
    are not given again: a repeated or follow-up question on a topic with more points than fit in one reply gives
    the next ones, in the router's order, ending with :data:`NOTICE` while more remain; once all are given, the
    reply is :data:`ALL_GIVEN` (no records, not a fallback). A bare follow-up ("what else?", "tell me more")
    continues the last topic. A message with more than :data:`MAX_QUESTIONS` questions (split at question marks,
    lines and list items) gets the points of its first three, one question at a time, and ends with
    :data:`DIGEST`. Nothing matched: the level's fallback reply, verbatim. Everything depends only on the
    questions asked so far, so the same transcript gives the same replies, also after pickling.

    Args:
        data: The level's User Agent Data.
        budget: Questions allowed (fallbacks count; refusals past the budget do not).
        router: A router name from :data:`ROUTERS` or a router instance.
        **router_options: Options for a router given by name.

    Example:
        >>> from icae_env.tasks import load_task
        >>> agent = GroundedUserAgent.from_task(load_task("builtin/unidiff"), level="L1", budget=2)
        >>> agent.ask("what is the weather like today?").fallback
        True
        >>> agent.remaining
        1
    """

    def __init__(
        self,
        data: UserAgentData,
        budget: int = DEFAULT_BUDGET,
        router: str | Router = DEFAULT_ROUTER,
        **router_options: Any,
    ) -> None:
        if not isinstance(budget, int) or isinstance(budget, bool) or budget < 0:
            raise ArgumentError(f"budget must be an int >= 0, got {budget!r}")
        self.data = data
        self.budget = budget
        self.documents = documents_for(data)
        self.router: Router = (
            make_router(router, self.documents, **router_options) if isinstance(router, str) else router
        )
        self._by_id = {d.doc_id: d for d in self.documents}
        self.log = InteractionLog(constraints=data.hidden_constraints, max_interactions=budget)
        self.given: list[str] = []
        self._topic: tuple[int, ...] = ()

    @classmethod
    def from_task(
        cls,
        task: Task,
        level: str = "L1",
        budget: int = DEFAULT_BUDGET,
        router: str | Router = DEFAULT_ROUTER,
        **options: Any,
    ) -> GroundedUserAgent:
        """Build the agent for ``task`` at ``level``."""
        return cls(task.user_agent_data(level), budget=budget, router=router, **options)

    @property
    def remaining(self) -> int:
        """Questions left."""
        return self.budget - len(self.log.turns)

    def reset(self) -> None:
        """Forget every question: full budget, empty log, no points given (the router index is kept)."""
        self.log = InteractionLog(constraints=self.data.hidden_constraints, max_interactions=self.budget)
        self.given, self._topic = [], ()

    def ask(self, question: str) -> Reply:
        """Answer ``question``; see the class docstring.

        Raises:
            TypeError: if ``question`` is not a string.
        """
        if not isinstance(question, str):
            raise ArgumentTypeError(f"question must be a str, got {type(question).__name__}")
        if self.remaining <= 0:
            return Reply(text=REFUSAL.format(budget=self.budget), remaining=0, refused=True)
        chosen, more, matched, too_many = self._points(question)
        if chosen:
            text = "\n\n".join(d.response for d in chosen)
            text += (f"\n\n{NOTICE}" if more else "") + (f"\n\n{DIGEST}" if too_many else "")
        else:
            text = ALL_GIVEN if matched else self.data.fallback_response
        self.given.extend(d.doc_id for d in chosen)
        hit = tuple(d.doc_id for d in chosen if d.is_constraint)
        remaining = self.remaining - 1
        self.log.record(
            Turn(
                turn=len(self.log.turns) + 1,
                remaining=remaining,
                question=question,
                answer=text,
                triggers_hit=hit,
                fallback_triggered=not matched,
            )
        )
        return Reply(
            text=text,
            constraint_ids=tuple(d.doc_id for d in chosen),
            fallback=not matched,
            remaining=remaining,
            truncated=more,
        )

    def peek(self, message: str) -> tuple[str, ...]:
        """Return the record ids :meth:`ask` would give ``message`` now, without asking: nothing is recorded or spent.

        For trainers that want counterfactual replies on training tasks (what every candidate question would have
        returned at this point of the session); no env hands the agent to a policy.

        Raises:
            TypeError: if ``message`` is not a string.
        """
        if not isinstance(message, str):
            raise ArgumentTypeError(f"message must be a str, got {type(message).__name__}")
        if self.remaining <= 0:
            return ()
        topic = self._topic
        try:
            chosen = self._points(message)[0]
        finally:
            self._topic = topic
        return tuple(d.doc_id for d in chosen)

    def _points(self, message: str) -> tuple[list[Document], bool, bool, bool]:
        """Return ``(points to give, whether more remain, whether anything matched, more than three questions)``."""
        questions = split_questions(message)
        topics = [self._route(q) for q in questions[:MAX_QUESTIONS]]
        fresh = [[i for i in topic if self.documents[i].doc_id not in self.given] for topic in topics]
        chosen = interleave(fresh, MAX_POINTS)
        if any(topics):
            self._topic = tuple(dict.fromkeys(i for topic in topics for i in topic))
        more = any(i not in chosen for topic in fresh for i in topic)
        return [self.documents[i] for i in chosen], more, any(topics), len(questions) > MAX_QUESTIONS

    def _route(self, question: str) -> tuple[int, ...]:
        """Return the documents that answer one question; a bare follow-up gets the last topic's."""
        found = tuple(m.index for m in self.router.route(question))
        if not found and is_follow_up(question):
            return self._topic
        return found

    def stats(self) -> InteractionStats:
        """Return ICAE's interaction metrics for this session."""
        return self.log.stats()
