"""The public API: compile once, match and filter many paths."""
from .compiler import compile_pattern
from .matcher import match_alternative, split_path


class Glob:
    """A compiled pattern. Raises GlobSyntaxError / TooManyAlternatives on a bad pattern."""

    def __init__(self, pattern, ignore_case=False):
        self.pattern = pattern
        self.ignore_case = ignore_case
        self.alternatives = compile_pattern(pattern)

    def matches(self, path):
        split = split_path(path)
        if split is None:
            return False
        segments, is_dir = split
        return any(match_alternative(a, tuple(segments), is_dir, self.ignore_case) for a in self.alternatives)

    def filter(self, paths):
        return [p for p in paths if self.matches(p)]


def compile(pattern, ignore_case=False):  # noqa: A001 - mirrors re.compile
    return Glob(pattern, ignore_case)


def match(pattern, path, ignore_case=False):
    return Glob(pattern, ignore_case).matches(path)


def filter(pattern, paths, ignore_case=False):  # noqa: A001
    return Glob(pattern, ignore_case).filter(paths)


def translate(pattern):
    """The compiled alternatives of ``pattern`` (see render.render_translation for the text view)."""
    return compile_pattern(pattern)
