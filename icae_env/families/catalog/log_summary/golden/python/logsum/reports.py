"""The five reports over a checked request."""

from .clock import label
from .rules import SKIP_LIMIT, TOP_DEFAULT, counted, percentile, tie_key
from .stats import errors, latencies, levels, measured, windows


def rollup(request):
    lines, blocks = [], windows(request.events, request.window)
    for start, events in blocks:
        count, share = errors(events)
        lines += [
            f"window {label(start)} events={len(events)}",
            f"  levels: {levels(events)}",
            f"  errors: {count}/{len(events)} ({share})",
        ]
    return lines + [f"summary: windows={len(blocks)} events={len(request.events)} skipped={len(request.skipped)}"]


def latency(request):
    lines = [f"window {label(start)} {latencies(events)}" for start, events in windows(request.events, request.window)]
    return lines + [f"all {latencies(request.events)}"]


def top(request):
    counts, first = {}, {}
    for index, event in enumerate(request.events):
        if counted(event):
            counts[event.service] = counts.get(event.service, 0) + 1
            first.setdefault(event.service, index)
    ranked = sorted(counts, key=lambda s: (-counts[s], tie_key(s, first[s])))[: request.n or TOP_DEFAULT]
    return [f"{rank}. {s} {counts[s]}" for rank, s in enumerate(ranked, start=1)] or ["no services"]


def check(request):
    lines = [f"line {s.line}: {s.reason}" for s in request.skipped]
    if SKIP_LIMIT is not None and len(lines) > SKIP_LIMIT:
        lines = lines[:SKIP_LIMIT] + [f"({len(lines) - SKIP_LIMIT} more skipped lines not shown)"]
    return lines + [f"ok: {len(request.events)} events, {len(request.skipped)} skipped"]


def services(request):
    groups = {}
    for event in request.events:
        groups.setdefault(event.service, []).append(event)
    lines = []
    for name in sorted(groups):
        count, share = errors(groups[name])
        values = measured(groups[name])
        median = f"{percentile(values, 50)}ms" if values else "-"
        lines.append(f"{name}: events={len(groups[name])} errors={count} ({share}) p50={median}")
    return lines or ["no services"]


REPORTS = {"rollup": rollup, "latency": latency, "top": top, "check": check, "services": services}
