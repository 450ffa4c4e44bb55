"""Rendering hunks as unified diff text."""
from dataclasses import dataclass

from .hunks import group_hunks
from .lcs import DELETE, INSERT, edit_script
from .lines import split_lines

NO_NEWLINE = "\\ No newline at end of file"


@dataclass
class DiffStats:
    hunks: int
    added: int
    removed: int


def _range(start, length):
    if length == 1:
        return f"{start + 1}"
    if length == 0:
        return f"{start},0"
    return f"{start + 1},{length}"


def unified_diff(a, b, context=3, a_name="a", b_name="b"):
    """Return (diff_text, DiffStats). diff_text is '' when a and b are identical."""
    hunks = group_hunks(edit_script(split_lines(a), split_lines(b)), context)
    stats = DiffStats(hunks=len(hunks), added=0, removed=0)
    if not hunks:
        return "", stats
    out = [f"--- {a_name}\n", f"+++ {b_name}\n"]
    for hunk in hunks:
        out.append(f"@@ -{_range(hunk.a_start, hunk.a_len)} +{_range(hunk.b_start, hunk.b_len)} @@\n")
        for op, line, last_a, last_b in hunk.lines:
            if op == INSERT:
                stats.added += 1
            elif op == DELETE:
                stats.removed += 1
            if line.endswith("\n"):
                out.append(op + line)
            else:
                # only the final line of a file can lack its newline
                out.append(op + line + "\n")
                out.append(NO_NEWLINE + "\n")
    return "".join(out), stats
