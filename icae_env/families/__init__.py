"""Procedural task families: an unlimited, certified supply of ICAE-style tasks with difficulty knobs and splits.

* :mod:`.spec`: what a family declares (features, hidden decisions, skins) and writes (golden, samplers, PRD text);
* :mod:`.keys` and :mod:`.plan`: hash-derived streams, behaviour keys enumerated without replacement, splits and
  the difficulty :class:`Knobs`;
* :mod:`.cases`, :mod:`.pack_files`, :mod:`.generate`: one task in memory, loaded by the strict pack loader;
* :mod:`.certify`: the checks every task passes before it is handed out;
* :class:`TaskDistribution`: tasks drawn by an env's seeded generator on every reset.

Names: ``gen/<family>/<split>/<index>[?knob=value&...]`` is one task (``icae_env.tasks.load_task`` and
``icae_env.make(..., task=name)`` accept it); ``gen/<family or *>/<split>[?...]`` is a distribution.
"""

from __future__ import annotations

from icae_env.families.certify import Certificate
from icae_env.families.distribution import TaskDistribution
from icae_env.families.generation import Generated, TaskRejected, generate, parse_name, task_name
from icae_env.families.plan import Knobs
from icae_env.families.registry import family_names, get_family
from icae_env.families.spec import Decision, Family, Feature, Plan, Skin, Value

__all__ = [
    "Certificate",
    "Decision",
    "Family",
    "Feature",
    "Generated",
    "Knobs",
    "Plan",
    "Skin",
    "TaskDistribution",
    "TaskRejected",
    "Value",
    "family_names",
    "generate",
    "get_family",
    "load_generated",
    "parse_name",
    "task_name",
]


def load_generated(name: str) -> object:
    """The task (``gen/<family>/<split>/<index>``) or the distribution (no index) ``name`` denotes."""
    family, split, index, knobs = parse_name(name)
    if index is None:
        return TaskDistribution.from_name(name)
    return generate(family, split, index, knobs).task
