"""Splitting text into lines; only '\n' terminates a line and it stays part of the line."""


def split_lines(text):
    """'a\\nb' -> ['a\\n', 'b']; '' -> []; 'a\\n' -> ['a\\n']."""
    lines = text.split("\n")
    result = [line + "\n" for line in lines[:-1]]
    if lines[-1]:
        result.append(lines[-1])
    return result
