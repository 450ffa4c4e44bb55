"""unidiff: line-based unified diff generation (own LCS implementation, no difflib)."""
from .lines import split_lines
from .lcs import edit_script, KEEP, DELETE, INSERT
from .hunks import Hunk, group_hunks
from .render import unified_diff, DiffStats

__all__ = ["split_lines", "edit_script", "KEEP", "DELETE", "INSERT", "Hunk", "group_hunks",
           "unified_diff", "DiffStats"]
