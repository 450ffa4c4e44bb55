"""The five reports over a replay."""

from .rules import counted_keys, order_keys, retry_text, window_origin


def tokens(milli):
    return f"{milli // 1000}.{milli % 1000:03d}"


def replay_lines(data, limit, run):
    lines = []
    for o in run.outcomes:
        if o.verdict == "INVALID":
            lines.append(f"#{o.index} INVALID {o.problem}")
        else:
            lines.append(f"#{o.index} t={o.t} key={o.key} {o.verdict} cost={o.cost} left={tokens(o.level)}")
    return lines or ["no events"]


def retry_lines(data, limit, run):
    lines = []
    for o in run.outcomes:
        if o.verdict == "DENY":
            wait = "never" if o.retry is None else retry_text(o.retry)
            lines.append(f"#{o.index} t={o.t} key={o.key} retry_after={wait}")
    return lines or ["no denied requests"]


def key_lines(data, limit, run):
    stats = [(key, b.allowed, b.denied) for key, b in run.buckets.items()]
    return [f"{key}: allowed={a} denied={d}" for key, a, d in order_keys(stats)] or ["no keys"]


def summary_lines(data, limit, run):
    done = [o for o in run.outcomes if o.verdict != "INVALID"]
    allowed = [o for o in done if o.verdict == "ALLOW"]
    stats = [(key, b.allowed, b.denied) for key, b in run.buckets.items()]
    return [
        f"allowed={len(allowed)} denied={len(done) - len(allowed)} invalid={len(run.outcomes) - len(done)} "
        f"keys={counted_keys(stats)} consumed={sum(o.cost for o in allowed)}"
    ]


def window_lines(data, limit, run):
    done = [o for o in run.outcomes if o.verdict != "INVALID"]
    if not done:
        return ["no requests"]
    origin, width, windows = window_origin(done[0].now), limit.window_ms, {}
    for o in done:
        start = origin + (o.now - origin) // width * width
        tally = windows.setdefault(start, [0, 0])
        tally[o.verdict == "DENY"] += 1
    return [f"{start}-{start + width}ms: allowed={a} denied={d}" for start, (a, d) in sorted(windows.items())]


REPORTS = {"replay": replay_lines, "retry": retry_lines, "keys": key_lines, "summary": summary_lines,
           "windows": window_lines}  # fmt: skip
