"""The in-process model of a generated golden: its own Python package, imported from memory and called.

A family's Python golden is one package (``<pkg>/__init__.py`` exporting ``handle(data) -> str``, modules that
import each other relatively). :func:`load_model` imports it from the file mapping under a private alias named by
the sources' hash, so the model the generator and the certifier call is, byte for byte, the code the golden ships.
Compiled modules are cached by source text: a family's ablations and tasks share most modules, so each distinct
module is compiled once per process.
"""

from __future__ import annotations

import hashlib
import importlib.abc
import importlib.util
import sys
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from importlib.machinery import ModuleSpec
from types import CodeType, ModuleType
from typing import Any

from icae_env.errors import ArgumentError

__all__ = ["Model", "load_model", "python_package"]

Model = Callable[[Any], str]
_LOCK = threading.Lock()


def python_package(files: Mapping[str, str]) -> str:
    """The golden's package: the one top-level folder holding ``__init__.py``.

    Raises:
        ArgumentError: when there is not exactly one.
    """
    packages = sorted({p.split("/", 1)[0] for p in files if p.count("/") == 1 and p.endswith("/__init__.py")})
    if len(packages) != 1:
        raise ArgumentError(f"a Python golden needs exactly one top-level package with __init__.py, got {packages}")
    return packages[0]


class _MemoryFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the modules of the golden packages loaded recently, each under its alias (the oldest are dropped)."""

    def __init__(self, keep: int = 256) -> None:
        self.sources: dict[str, tuple[str, str, bool]] = {}  # module name -> (source, filename, is package)
        self.aliases: OrderedDict[str, None] = OrderedDict()
        self.keep = keep

    def touch(self, alias: str) -> None:
        """Mark ``alias`` as used; forget the least recently used packages beyond ``keep``."""
        self.aliases[alias] = None
        self.aliases.move_to_end(alias)
        while len(self.aliases) > self.keep:
            old, _ = self.aliases.popitem(last=False)
            for name in [n for n in self.sources if n == old or n.startswith(old + ".")]:
                del self.sources[name]
                sys.modules.pop(name, None)

    def add(self, alias: str, package: str, files: Mapping[str, str]) -> None:
        for path, source in files.items():
            if not path.startswith(f"{package}/") or not path.endswith(".py"):
                continue
            parts = path[: -len(".py")].split("/")
            is_package = parts[-1] == "__init__"
            name = ".".join([alias, *parts[1 : -1 if is_package else None]])
            self.sources[name] = (source, f"<golden>/{path}", is_package)

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if fullname not in self.sources:
            return None
        return importlib.util.spec_from_loader(fullname, self, is_package=self.sources[fullname][2])

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        source, filename, _ = self.sources[module.__name__]
        exec(_compiled(source, filename), module.__dict__)  # noqa: S102 - the family's own generated code


@lru_cache(maxsize=4096)
def _compiled(source: str, filename: str) -> CodeType:
    return compile(source, filename, "exec")


_FINDER = _MemoryFinder()
sys.meta_path.append(_FINDER)


def load_model(files: Mapping[str, str]) -> Model:
    """Import the Python golden in ``files`` and return its ``handle`` (cached by the sources' hash).

    Raises:
        ArgumentError: when the package is missing or exports no ``handle``.
    """
    package = python_package(files)
    digest = hashlib.sha256("\0".join(f"{p}\0{files[p]}" for p in sorted(files)).encode("utf-8")).hexdigest()[:16]
    alias = f"_icae_golden_{digest}"
    with _LOCK:
        if alias not in sys.modules:
            _FINDER.add(alias, package, files)
        module = importlib.import_module(alias)
        _FINDER.touch(alias)
    handle: Model | None = getattr(module, "handle", None)
    if not callable(handle):
        raise ArgumentError(f"the golden package {package!r} exports no handle(data) function")
    return handle
