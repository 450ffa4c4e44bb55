"""A distribution over generated tasks, drawn by an env's seeded generator on every reset (for training loops).

Pass one as ``task=``: ``icae_env.make("icae/Clarify-v0", task=TaskDistribution(split="train"))``, or name one:
``task="gen/*/train?features=4"`` (every training family) or ``task="gen/<family>/train"``. Knobs given as ``(low,
high)`` ranges are drawn per task. A drawn task that failed certification is replaced by the next index.

Example:
    >>> import numpy as np
    >>> dist = TaskDistribution(families=("ledger-report",), split="train", knobs={"surprise": (1, 2)})
    >>> task = dist.sample(np.random.default_rng(0))
    >>> task.meta["family"], task.meta["split"], task.meta["knobs"]["surprise"] in (1, 2)
    ('ledger-report', 'train', True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from icae_env.errors import TaskNotFoundError
from icae_env.families.generation import generate, parse_name
from icae_env.families.plan import Knobs
from icae_env.families.registry import family_names, get_family
from icae_env.tasks.models import Task

__all__ = ["INDEX_RANGE", "TaskDistribution"]

#: Indexes drawn per split (a split of a family usually holds more keys; a shorter one wraps around).
INDEX_RANGE = 100_000
_TRIES = 20


class TaskDistribution(BaseModel):
    """Generated tasks of some families and one split, with knobs fixed or drawn from ranges.

    Attributes:
        families: Family names (empty: every registered family that has the split: held-out families only have
            ``test``).
        split: ``train`` or ``test``.
        knobs: Knob -> value, or ``(low, high)`` (inclusive) drawn per task.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    families: tuple[str, ...] = ()
    split: str = Field(default="train", pattern="^(train|test)$")
    knobs: dict[str, Any] = {}

    @classmethod
    def from_name(cls, name: str) -> TaskDistribution:
        """The distribution a name without an index denotes (``gen/<family or *>/<split>[?knobs]``)."""
        family, split, _, knobs = parse_name(name)
        return cls(
            families=() if family == "*" else (family,), split=split, knobs=knobs.model_dump(exclude_defaults=True)
        )

    @property
    def ref(self) -> str:
        """The name of the distribution (what trajectories record; ranges are not expressible and are dropped)."""
        fixed = {k: v for k, v in self.knobs.items() if not isinstance(v, (list, tuple))}
        query = "&".join(f"{k}={v}" for k, v in sorted(fixed.items()))
        family = self.families[0] if len(self.families) == 1 else "*"
        return f"gen/{family}/{self.split}" + (f"?{query}" if query else "")

    def members(self) -> list[str]:
        """The families drawn from."""
        names = list(self.families) or family_names()
        return [n for n in names if self.split == "test" or not get_family(n).held_out]

    def _knobs(self, rng: np.random.Generator) -> Knobs:
        drawn = {
            k: (int(rng.integers(v[0], v[1] + 1)) if isinstance(v, (list, tuple)) else v) for k, v in self.knobs.items()
        }
        return Knobs.model_validate(drawn)

    def sample(self, rng: np.random.Generator) -> Task:
        """Draw one certified task with ``rng``.

        Raises:
            TaskNotFoundError: when no family of the distribution yields a task.
        """
        members = self.members()
        if not members:
            raise TaskNotFoundError(f"no family has a {self.split} split among {list(self.families) or 'all'}")
        for _ in range(_TRIES):
            family = members[int(rng.integers(len(members)))]
            knobs = self._knobs(rng)
            try:
                return generate(
                    family, self.split, int(rng.integers(INDEX_RANGE)) % _size(family, self.split, knobs), knobs
                ).task
            except TaskNotFoundError:
                continue
        raise TaskNotFoundError(f"{self.ref}: {_TRIES} draws in a row failed certification or had no task")


def _size(family: str, split: str, knobs: Knobs) -> int:
    """A bound on the task indexes worth drawing for (family, split, knobs): the split's key count, up to a cap."""
    from icae_env.families.plan import behaviour_key

    low, high = 0, INDEX_RANGE
    while low + 1 < high:  # the largest index with a key, by bisection (the walk is cached and extended lazily)
        middle = (low + high) // 2
        try:
            behaviour_key(get_family(family), split, middle, knobs)
            low = middle
        except TaskNotFoundError:
            high = middle
    return low + 1
