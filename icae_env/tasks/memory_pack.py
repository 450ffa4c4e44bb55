"""A task pack held in memory: the pack loader reads it as it reads a directory (generated tasks never touch disk).

:class:`MemoryPath` implements the few :class:`pathlib.Path` methods the loader uses, over a mapping of
``/``-separated paths relative to the pack root to their text.

Example:
    >>> root = MemoryPath({"task.yaml": "id: x", "cases/native/f.json": "{}"}, label="gen/x")
    >>> (root / "task.yaml").read_text(), (root / "cases").is_dir()
    ('id: x', True)
    >>> [p.name for p in (root / "cases/native").glob("*.json")]
    ['f.json']
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterator, Mapping

__all__ = ["MemoryPath"]


class MemoryPath:
    """A path inside an in-memory pack.

    Args:
        files: Pack-relative path -> text.
        rel: This path, relative to the pack root (``""`` is the root).
        label: How the pack root is named in messages (``gen/<family>/<split>/<index>``).
        executables: Pack-relative paths of the files that are executable.
    """

    def __init__(
        self,
        files: Mapping[str, str],
        rel: str = "",
        label: str = "<memory>",
        executables: frozenset[str] = frozenset(),
    ) -> None:
        self.files, self.rel, self.label, self.executables = files, rel.strip("/"), label, executables

    def _at(self, rel: str) -> MemoryPath:
        return MemoryPath(self.files, rel, self.label, self.executables)

    def __truediv__(self, part: str) -> MemoryPath:
        return self._at(f"{self.rel}/{part}" if self.rel else str(part))

    def __str__(self) -> str:
        return f"{self.label}/{self.rel}" if self.rel else self.label

    def __repr__(self) -> str:
        return f"MemoryPath({str(self)!r})"

    def __lt__(self, other: MemoryPath) -> bool:
        return self.rel < other.rel

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MemoryPath) and (other.files, other.rel) == (self.files, self.rel)

    def __hash__(self) -> int:
        return hash(self.rel)

    @property
    def name(self) -> str:
        """The last part (the pack's id for the root)."""
        return self.rel.rsplit("/", 1)[-1] if self.rel else self.label.rsplit("/", 1)[-1]

    @property
    def stem(self) -> str:
        """The name without its suffix."""
        return self.name.rsplit(".", 1)[0] if "." in self.name else self.name

    @property
    def parent(self) -> MemoryPath:
        """The containing directory."""
        return self._at(self.rel.rsplit("/", 1)[0] if "/" in self.rel else "")

    def is_file(self) -> bool:
        """Whether a file is stored at this path."""
        return self.rel in self.files

    def is_dir(self) -> bool:
        """Whether files are stored below this path."""
        prefix = f"{self.rel}/" if self.rel else ""
        return any(path.startswith(prefix) for path in self.files)

    def exists(self) -> bool:
        """Whether this path is a file or a directory."""
        return self.is_file() or self.is_dir()

    def read_text(self, encoding: str = "utf-8") -> str:
        """The stored text.

        Raises:
            FileNotFoundError: when no file is stored here.
        """
        if self.rel not in self.files:
            raise FileNotFoundError(str(self))
        return self.files[self.rel]

    def glob(self, pattern: str) -> Iterator[MemoryPath]:
        """The files directly in this directory whose names match ``pattern``."""
        prefix = f"{self.rel}/" if self.rel else ""
        for path in sorted(self.files):
            rest = path[len(prefix) :] if path.startswith(prefix) else None
            if rest and "/" not in rest and fnmatch.fnmatch(rest, pattern):
                yield self._at(path)

    def resolve(self) -> MemoryPath:
        """The path itself (nothing to resolve in memory)."""
        return self

    def below(self) -> dict[str, str]:
        """The files below this directory, by path relative to it."""
        prefix = f"{self.rel}/" if self.rel else ""
        return {path[len(prefix) :]: text for path, text in self.files.items() if path.startswith(prefix)}
