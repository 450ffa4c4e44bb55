"""Minimal edit script between two line lists with a fixed tie-breaking rule.

L(i, j) is the LCS length of a[i:] and b[j:]. Walking from (0, 0):
  * a[i] == b[j]                       -> KEEP (always optimal)
  * b exhausted, or L(i+1, j) >= L(i, j+1) -> DELETE a[i]
  * otherwise                          -> INSERT b[j]
Within a run of changes this puts all deletions before the insertions.
"""

KEEP = " "
DELETE = "-"
INSERT = "+"


def _suffix_lcs_table(a, b):
    n, m = len(a), len(b)
    table = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        row, below = table[i], table[i + 1]
        ai = a[i]
        for j in range(m - 1, -1, -1):
            if ai == b[j]:
                row[j] = below[j + 1] + 1
            else:
                down, right = below[j], row[j + 1]
                row[j] = down if down >= right else right
    return table


def edit_script(a, b):
    """Return a list of (op, line) tuples turning line list ``a`` into ``b``."""
    ops = []
    # a common prefix is always kept by the rule above, so it can skip the table
    prefix = 0
    while prefix < len(a) and prefix < len(b) and a[prefix] == b[prefix]:
        ops.append((KEEP, a[prefix]))
        prefix += 1
    a, b = a[prefix:], b[prefix:]
    table = _suffix_lcs_table(a, b)
    i = j = 0
    n, m = len(a), len(b)
    while i < n or j < m:
        if i < n and j < m and a[i] == b[j]:
            ops.append((KEEP, a[i]))
            i += 1
            j += 1
        elif i < n and (j == m or table[i + 1][j] >= table[i][j + 1]):
            ops.append((DELETE, a[i]))
            i += 1
        else:
            ops.append((INSERT, b[j]))
            j += 1
    return ops
