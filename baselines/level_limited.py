"""Level-limited format reader: learns a task's output wording from what one level shows, and nothing else.

Not privileged: it reads the level's PRD and public case files and asks the level's User Agent plain questions
about output wording (generic ones, then one per feature bullet of the PRD, each followed up while the reply says
more remains). Its reading (PRD, replies, public outputs) is what an honest agent at that level can know about
formats; the family tests check that every output template of a generated task appears in it
(``tests/families/test_family_contract.py``; the 20-tasks-per-family figure is ``benchmarks/format_figures.py``).

Example:
    >>> from icae_env.tasks import load_task
    >>> from icae_env.user_agent.grounded import GroundedUserAgent
    >>> task = load_task("builtin/unidiff")
    >>> agent = GroundedUserAgent.from_task(task, level="L1")
    >>> reading = read_formats(task.prd("L1"), task.tests.public, lambda q: agent.ask(q).text)
    >>> 0 < len(reading.questions) <= MAX_QUESTIONS
    True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from icae_env.tasks.models import CaseFile

__all__ = ["FORMAT_QUESTIONS", "MAX_QUESTIONS", "Reading", "feature_questions", "read_formats"]

#: Plain questions about output wording, written for any report-printing tool (not for a task or family).
FORMAT_QUESTIONS: tuple[str, ...] = (
    "What exactly does the output look like, line by line?",
    "What exactly does an error line look like?",
    "What is printed when the request itself is invalid?",
)
#: Questions at most (follow-ups included).
MAX_QUESTIONS = 10
_MORE = "There is more on this topic"
_BULLET = re.compile(r"^\s*[-*]\s+(.+)$", re.MULTILINE)


@dataclass
class Reading:
    """What the reader saw.

    Attributes:
        questions: The questions it asked, in order.
        replies: The User Agent's replies, in order.
        text: The PRD, every reply and every public output, joined.
    """

    questions: list[str] = field(default_factory=list)
    replies: list[str] = field(default_factory=list)
    text: str = ""


def feature_questions(prd: str) -> list[str]:
    """One output-wording question per feature bullet of the PRD's opening list (the text before its first colon)."""
    head = prd.split("\n## Rules", 1)[0]
    questions = []
    for bullet in _BULLET.findall(head):
        topic = re.split(r"[:.;]", bullet, maxsplit=1)[0].strip().rstrip(",")
        if topic:
            questions.append(f"What exactly does the output look like for {topic[:80].lower()}?")
    return questions


def read_formats(
    prd: str, public: Sequence[CaseFile], ask: Callable[[str], str], max_questions: int = MAX_QUESTIONS
) -> Reading:
    """Ask plain format questions, follow each up while more remains, and gather what the level shows.

    Args:
        prd: The level's PRD.
        public: The public case files.
        ask: Sends one question to the level's User Agent and returns its reply.
        max_questions: Questions at most.
    """
    reading = Reading()
    for question in (*FORMAT_QUESTIONS, *feature_questions(prd)):
        while len(reading.questions) < max_questions:
            reading.questions.append(question)
            reading.replies.append(ask(question))
            if _MORE not in reading.replies[-1]:
                break
            question = "What else?"
    outputs = [c.expected_text for f in public for c in f.cases]
    reading.text = "\n".join([prd, *reading.replies, *outputs])
    return reading
