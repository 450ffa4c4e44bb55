"""Re-export of the top-level :mod:`wrappers` package, so that users have a single import root."""

from wrappers import *  # noqa: F403
from wrappers import __all__  # noqa: F401
