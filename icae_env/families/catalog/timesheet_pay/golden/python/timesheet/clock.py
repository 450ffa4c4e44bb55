"""The worked time of a shift: clock rounding, overnight shifts,
zero-length shifts and breaks."""

from .rules import ZERO_SHIFT, day_parts, round_in, round_out, unrecorded_break

DAY_MINUTES = 1440


class ZeroShift(Exception):
    """A shift whose clock-out equals its clock-in, under the house rule that rejects it."""

    def __init__(self, number):
        super().__init__(f"shift {number}: clock-out equals clock-in")


def bounds(shift):
    """Start and end (minutes from the midnight of the shift's date) after rounding."""
    start = round_in(shift.clock_in)
    if shift.clock_out == shift.clock_in:
        if ZERO_SHIFT == "error":
            raise ZeroShift(shift.number)
        if ZERO_SHIFT == "zero":
            return start, start
    overnight = DAY_MINUTES if shift.clock_out <= shift.clock_in else 0
    return start, max(start, round_out(shift.clock_out) + overnight)


def pause(shift, span):
    """The break taken off a shift of ``span`` minutes (never more than the span)."""
    taken = shift.recorded_break if shift.recorded_break is not None else unrecorded_break(span)
    return min(span, taken)


def worked(shift):
    start, end = bounds(shift)
    return end - start - pause(shift, end - start)


def pieces(shift):
    """(date, minutes) pieces of the shift's worked time for the per-day report."""
    start, end = bounds(shift)
    return day_parts(shift.date, start, end, pause(shift, end - start))


def raw_span(shift):
    """Minutes between the clock times as recorded (None: a rejected zero-length shift)."""
    if shift.clock_out == shift.clock_in:
        return {"zero": 0, "full_day": DAY_MINUTES}.get(ZERO_SHIFT)
    return (shift.clock_out - shift.clock_in) % DAY_MINUTES
