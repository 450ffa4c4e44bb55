"""RFC 6902 JSON Patch applied to in-memory JSON values (standard library only)."""

from .engine import Outcome, apply, check_patch, explain, run
from .equality import json_equal
from .errors import PatchError
from .operations import OPS, Step
from .render import canonical, step_line

__all__ = ["OPS", "Outcome", "PatchError", "Step", "apply", "canonical", "check_patch", "explain",
           "json_equal", "run", "step_line"]
