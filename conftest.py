"""Doctest collection of the package: modules of an optional extra that is not installed are not imported.

(The tests of such a module skip with a reason that names the extra; CI installs every extra.)
"""

from __future__ import annotations

import importlib.util

_OPTIONAL = {"openenv": ["icae_env/serve/*.py"], "skyrl_gym": ["icae_env/trainers/skyrl.py"]}
collect_ignore_glob = [
    glob for module, globs in _OPTIONAL.items() if not importlib.util.find_spec(module) for glob in globs
]
