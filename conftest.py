"""Doctest collection of the package: modules of an optional extra that is not installed are not imported.

(The tests of such a module skip with a reason that names the extra; CI installs every extra.)
"""

from __future__ import annotations

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("openenv") else ["icae_env/serve/*.py"]
