"""One request in, one report out."""

from .clock import ZeroShift, bounds
from .reports import REPORTS
from .request import Invalid, read_request


def refusal(request):
    """The error of a well-formed request that its op cannot report on, or None."""
    if request.op == "check":
        return None
    try:
        for shift in request.shifts:
            bounds(shift)
    except ZeroShift as exc:
        return str(exc)
    if request.op == "pay":
        for shift in request.shifts:
            if shift.employee not in request.rates:
                return f"no rate for {shift.employee}"
    if request.op == "slip":
        if request.employee not in request.rates:
            return f"no rate for {request.employee}"
        if all(shift.employee != request.employee for shift in request.shifts):
            return f"no shifts for {request.employee}"
    return None


def handle(data):
    """The whole output of one request: {op, period, rates, shifts, employee?}."""
    try:
        request = read_request(data)
    except Invalid as exc:
        return f"error: {exc}\n"
    problem = refusal(request)
    if problem is not None:
        return f"error: {problem}\n"
    lines = [f"== {request.period} ==", *REPORTS[request.op](request)]
    return "\n".join(lines) + "\n"
