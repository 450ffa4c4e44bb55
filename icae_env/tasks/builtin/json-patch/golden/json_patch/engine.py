"""Running a whole patch: check every operation first, then apply them in order, all or nothing."""

import copy
from dataclasses import dataclass, field

from .errors import PatchError, PointerError
from .operations import Operation, Step, check, perform


@dataclass
class Outcome:
    """Result of a run: the final document (the original one when an operation failed), the steps that
    completed, and the error if any."""

    document: object
    steps: list[Step] = field(default_factory=list)
    error: PatchError | None = None


def check_patch(patch: list) -> list[Operation]:
    """Check the shape of every operation, in order; raise PatchError for the first malformed one."""
    ops = []
    for index, raw in enumerate(patch):
        try:
            ops.append(check(index, raw))
        except ValueError as exc:
            raise PatchError(index, str(exc)) from None
    return ops


def run(document, patch: list) -> Outcome:
    """Apply ``patch`` to a deep copy of ``document``. ``document`` itself is never modified."""
    try:
        ops = check_patch(patch)
    except PatchError as exc:
        return Outcome(document, [], exc)
    work = copy.deepcopy(document)
    steps: list[Step] = []
    for op in ops:
        try:
            work, step = perform(work, op)
        except PointerError as exc:
            return Outcome(document, steps, PatchError(op.index, exc.reason))
        steps.append(step)
    return Outcome(work, steps)


def apply(document, patch: list):
    """Return the patched document; raise PatchError (the input is left untouched) on failure."""
    outcome = run(document, patch)
    if outcome.error is not None:
        raise outcome.error
    return outcome.document


def explain(document, patch: list) -> tuple[object, list[Step]]:
    """Like apply, but also return one Step per operation describing what it did."""
    outcome = run(document, patch)
    if outcome.error is not None:
        raise outcome.error
    return outcome.document, outcome.steps
