"""Executable checks of revision criteria: ``command``, ``source``, ``http``, ``browser`` and ``judge``.

Each check returns a :class:`~icae_env.revision.checks.common.CheckOutcome` (assertions, evidence files, an
error); :mod:`icae_env.revision.grading` turns it into a verdict.
"""
