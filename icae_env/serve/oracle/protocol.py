"""The reference Oracle's wire protocol: constants, error strings and the checks on request bodies.

Restates ``docs/icae-format.md`` section 5 (the reference Oracle server of ICAE-EVAL) as code shared by
:mod:`icae_env.serve.oracle.service` (the service) and :mod:`icae_env.serve.oracle.server` (the HTTP transport).
Nothing here touches a session: these are pure functions of one request body.

Example:
    >>> settings = parse_init({"key": PUBLISHED_KEY, "model": "m", "max_interactions": "8"}, key=PUBLISHED_KEY)
    >>> settings.max_interactions, settings.difficulty, settings.open_access
    (8, 'normal', False)
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass
from typing import Any

from icae_env.user_agent.grounded import DEFAULT_BUDGET

__all__ = [
    "DEFAULT_MAX_SESSIONS",
    "DEFAULT_PORTS",
    "DEFAULT_SESSION_TTL_S",
    "DIFFICULTIES",
    "ENDPOINTS",
    "PREFLIGHT_TASK",
    "PUBLISHED_KEY",
    "RequestError",
    "SessionSettings",
    "coerce_max_interactions",
    "error_response",
    "is_append_id",
    "parse_init",
]

#: ICAE difficulty name -> icae-env level.
DIFFICULTIES: dict[str, str] = {"normal": "L1", "medium": "L2", "easy": "L3"}
#: The three endpoints, in port order.
ENDPOINTS: tuple[str, str, str] = ("init", "interaction", "stats")
#: The reference Oracle's ports (init, interaction, stats).
DEFAULT_PORTS: tuple[int, int, int] = (50001, 50002, 50003)
#: Sessions held in memory at most; loading one more evicts the least recently used (it stays in the store).
DEFAULT_MAX_SESSIONS = 10_000
#: Seconds a session may stay idle in memory before it is evicted (it stays in the store).
DEFAULT_SESSION_TTL_S = 6 * 3600.0
#: The init key the reference harness sends (published with ICAE-EVAL; it keeps the agent from minting ids).
PUBLISHED_KEY = "zVtwLTkCKwoCWq4Jq9D2"
#: The task id of the harness's preflight probe (question ``ping``): never a task, never counted or logged.
PREFLIGHT_TASK = "__preflight__"

ERR_KEY = "invalid key"
ERR_MODEL = "missing model"
ERR_DIFFICULTY = "difficulty must be 'normal', 'medium', or 'easy'"
ERR_APPEND_ID = "invalid append_id"
ERR_MISSING = "missing task_id/question"
ERR_NO_PRD = "no prd for {task_id}"
ERR_BUDGET = "max_interactions_reached"
ERR_STATS_MISSING = "missing append_id"
ERR_STATS_FORMAT = "invalid append_id format"
ERR_NO_LOG = "no log for {task_id}"
ERR_NO_LOGS = "no log found for append_id"

_APPEND_ID = re.compile(r"[0-9a-f]{32}")


class RequestError(Exception):
    """A request the service answers with ``status.ok`` false and this message (HTTP 200)."""


@dataclass(frozen=True)
class SessionSettings:
    """What init binds to an ``append_id`` (the key is checked, never stored).

    Attributes:
        model: The model name the harness gave (echoed in stats).
        difficulty: ``normal``, ``medium`` or ``easy``.
        max_interactions: Questions allowed per task (any int; 0 or less refuses every question).
        open_access: The init flag, recorded and echoed (see :class:`~icae_env.serve.oracle.service.OracleService`).
    """

    model: str
    difficulty: str
    max_interactions: int
    open_access: bool

    @property
    def level(self) -> str:
        """The icae-env level of this difficulty."""
        return DIFFICULTIES[self.difficulty]

    def to_json(self) -> dict[str, Any]:
        """Return the settings as a JSON object."""
        return asdict(self)


def error_response(endpoint: str, message: str) -> dict[str, Any]:
    """Return the reference error body of ``endpoint`` (``init``, ``interaction`` or ``stats``).

    Args:
        endpoint: One of :data:`ENDPOINTS`.
        message: The ``status.error`` string.

    Returns:
        ``{"append_id": null, ...}`` for init, ``{"data": "", ...}`` for interaction and only the status for
        stats, each with ``"status": {"ok": false, "error": message}``.
    """
    status = {"ok": False, "error": message}
    if endpoint == "init":
        return {"append_id": None, "status": status}
    if endpoint == "stats":
        return {"status": status}
    return {"data": "", "status": status}


def is_append_id(value: Any) -> bool:
    """Whether ``value`` has the form of an ``append_id`` (32 lowercase hex digits)."""
    return isinstance(value, str) and _APPEND_ID.fullmatch(value) is not None


def coerce_max_interactions(value: Any, default: int) -> int:
    """Coerce an init ``max_interactions`` as Python's ``int()`` does (``"16"``, ``16.0`` and ``16`` give 16).

    Args:
        value: The request value; None (absent or null) gives ``default``.
        default: The server's budget.

    Returns:
        The budget; negative values are kept (they refuse every question).

    Raises:
        RequestError: for booleans, non-finite numbers, strings ``int()`` refuses, and other types.
    """
    if value is None:
        return default
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value):
        return int(value)
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
    raise RequestError(f"max_interactions must be an integer, got {value!r}")


def _open_access(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, float)):
        return bool(value)
    raise RequestError(f"open_access must be a boolean, got {value!r}")


def _model(value: Any) -> str:
    if not value:
        raise RequestError(ERR_MODEL)
    if not isinstance(value, str):
        raise RequestError(f"model must be a string, got {type(value).__name__}")
    return value


def parse_init(
    payload: dict[str, Any], *, key: str, allow_keyless: bool = False, default_budget: int = DEFAULT_BUDGET
) -> SessionSettings:
    """Check an init body in the reference's order (key, model, difficulty) and return its settings.

    Args:
        payload: ``{"key", "model", "max_interactions"?, "difficulty"?, "open_access"?}``.
        key: The key the server expects.
        allow_keyless: Also accept a body without a key (absent, null or ``""``); a wrong key is still refused.
        default_budget: ``max_interactions`` when the body gives none.

    Returns:
        The session's settings.

    Raises:
        RequestError: ``invalid key``, ``missing model``, the difficulty error, or a bad ``max_interactions`` /
            ``open_access`` / ``model`` type.
    """
    given = payload.get("key")
    if given != key and not (allow_keyless and given in (None, "")):
        raise RequestError(ERR_KEY)
    model = _model(payload.get("model"))
    difficulty = payload.get("difficulty", "normal")
    if not isinstance(difficulty, str) or difficulty not in DIFFICULTIES:
        raise RequestError(ERR_DIFFICULTY)
    return SessionSettings(
        model=model,
        difficulty=difficulty,
        max_interactions=coerce_max_interactions(payload.get("max_interactions"), default_budget),
        open_access=_open_access(payload.get("open_access", False)),
    )
