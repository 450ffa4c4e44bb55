"""The grounded User Agent: answers clarification questions only from a task level's hidden records.

Example:
    >>> from icae_env.tasks import load_task
    >>> from icae_env.user_agent import GroundedUserAgent
    >>> agent = GroundedUserAgent.from_task(load_task("builtin/dep-resolver"), level="L1")
    >>> reply = agent.ask("how are cycles reported?")
    >>> reply.constraint_ids[0], reply.fallback, reply.remaining
    ('C004', False, 15)
"""

from __future__ import annotations

from icae_env.user_agent.base import Document, Match, Reply, Router, UserAgent
from icae_env.user_agent.grounded import ROUTERS, GroundedUserAgent, documents_for, make_router
from icae_env.user_agent.metrics import InteractionLog

__all__ = [
    "ROUTERS",
    "Document",
    "GroundedUserAgent",
    "InteractionLog",
    "Match",
    "Reply",
    "Router",
    "UserAgent",
    "documents_for",
    "make_router",
]
