"""The registered task families, by name (the table lives in :data:`icae_env.registration.FAMILIES`)."""

from __future__ import annotations

from functools import cache

from icae_env.families.spec import Family
from icae_env.registration import FAMILIES, load_entry_point, unknown

__all__ = ["family_names", "get_family"]


def family_names() -> list[str]:
    """The registered family names, sorted."""
    return sorted(FAMILIES)


@cache
def get_family(name: str) -> Family:
    """The family registered as ``name`` (one instance per process).

    Raises:
        UnknownNameError: naming the registered families.
    """
    if name not in FAMILIES:
        raise unknown("task family", name, list(FAMILIES))
    family: Family = load_entry_point(FAMILIES[name])()
    return family
