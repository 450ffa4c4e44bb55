"""Gymnasium wrappers for icae-env environments, one concern per module.

Importable both as ``wrappers`` and as ``icae_env.wrappers``. The environment itself
(``icae/ProjectBuild-v0``) and its wrappers are tracked in their own issues; this package is the place they
land.
"""

__all__: list[str] = []
