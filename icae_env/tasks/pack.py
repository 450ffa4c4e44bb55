"""Load and validate on-disk task packs (see ``docs/task-pack.md``).

Every failure is a :class:`~icae_env.errors.TaskValidationError` whose message is one line naming the file
and the field.
"""

from __future__ import annotations

import difflib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, NoReturn, TypeVar, cast

import yaml
from pydantic import BaseModel, ConfigDict, Field, JsonValue, ValidationError

from icae_env.errors import ArgumentTypeError, TaskNotFoundError, TaskValidationError
from icae_env.tasks.boilerplate import public_cases_section, standard_records
from icae_env.tasks.memory_pack import MemoryPath
from icae_env.tasks.models import (
    TIERS,
    CaseFile,
    ContextPointer,
    GoldenFile,
    HiddenConstraint,
    Level,
    LevelSpec,
    Runtime,
    Task,
    TestCase,
    TestTiers,
)
from icae_env.tasks.runtimes import default_runtime

__all__ = ["BuiltinSuite", "load_pack", "load_case_file", "read_yaml_mapping", "validate_model", "TASK_FILE"]

TASK_FILE = "task.yaml"
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's, about 10x faster, when it is built in
PackPath = Path | MemoryPath
"""A pack directory on disk, or one held in memory (:class:`~icae_env.tasks.memory_pack.MemoryPath`)."""
PackLevel = Literal["L1", "L2", "L3"]
_M = TypeVar("_M", bound=BaseModel)
_PACK_LEVELS: tuple[PackLevel, ...] = ("L1", "L2", "L3")


@dataclass(frozen=True)
class BuiltinSuite:
    """A folder of built-in packs, named ``<prefix>/<name>``, and the name resolution every kind's loader shares.

    Attributes:
        prefix: The names' prefix (``builtin``, ``revision``).
        folder: The folder holding one pack directory per task.
        what: What a task is called in errors (``task``, ``revision task``).
    """

    prefix: str
    folder: Path
    what: str

    def names(self) -> list[str]:
        """The built-in task names, sorted."""
        if not self.folder.is_dir():
            return []
        return sorted(f"{self.prefix}/{p.name}" for p in self.folder.iterdir() if (p / TASK_FILE).is_file())

    def resolve(self, name_or_path: str | Path) -> tuple[Path, str | None]:
        """Return the pack directory and origin of a built-in name or a pack path.

        A built-in name is ``<prefix>/<name>`` or ``<name>``; its origin is ``"builtin"`` (None for a path).

        Raises:
            ArgumentTypeError: for anything but a str or Path.
            TaskNotFoundError: when nothing matches (with close built-in names as suggestions).
        """
        if not isinstance(name_or_path, (str, Path)):
            raise ArgumentTypeError(f"name_or_path must be a str or Path, got {type(name_or_path).__name__}")
        text = str(name_or_path)
        name = text.removeprefix(f"{self.prefix}/")
        if "/" not in name and (self.folder / name / TASK_FILE).is_file():
            return self.folder / name, "builtin"
        path = Path(text)
        path = path.parent if path.name == TASK_FILE else path
        if (path / TASK_FILE).is_file():
            return path, None
        known = self.names()
        close = difflib.get_close_matches(text, known + [k.removeprefix(f"{self.prefix}/") for k in known], n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; built-in {self.what}s: {', '.join(known)}"
        raise TaskNotFoundError(f"no {self.what} named or at {text!r}{hint}")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class _PackRuntime(_Strict):
    toolchain: list[str] | None = None
    image: str | None = None


class _PackLevel(_Strict):
    hidden: list[str]


class _PackFile(_Strict):
    id: str = Field(min_length=1)
    title: str
    language: str = Field(min_length=1)
    runtime: _PackRuntime | None = None
    case_timeout_s: float = Field(default=10.0, gt=0)
    tier_timeout_s: float = Field(default=600.0, gt=0)
    first_output_s: float = Field(default=30.0, ge=0)
    golden_api_signature: str
    fallback_response: str = Field(min_length=1)
    constraints: list[HiddenConstraint]
    context_pointers: list[ContextPointer] = []
    levels: dict[PackLevel, _PackLevel]
    standard_records: bool = True
    meta: dict[str, JsonValue] = {}


class _CaseFileJson(_Strict):
    description: str = ""
    cases: list[_CaseJson]


class _CaseJson(_Strict):
    input: JsonValue
    expected_output: JsonValue


_CaseFileJson.model_rebuild()


def _field_path(loc: tuple[Any, ...]) -> str:
    path = ""
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        else:
            path += f".{part}" if path else str(part)
    return path or "-"


def _raise_from(file: PackPath, error: ValidationError) -> NoReturn:
    first = error.errors()[0]
    loc = tuple(p for p in first["loc"] if p not in ("function-after", "tagged-union"))
    message = first["msg"]
    if first["type"] == "extra_forbidden":
        message = "unknown field"
    elif first["type"] == "missing":
        message = "missing field"
    elif message.startswith("Value error, "):
        message = message[len("Value error, ") :]
    if "input" in first and first["type"] not in ("missing", "extra_forbidden"):
        message += f" (got {str(first['input'])[:80]!r})"
    raise TaskValidationError(str(file), _field_path(loc), message) from None


def _read_json(path: PackPath) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise TaskValidationError(str(path), "-", f"not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except UnicodeDecodeError:
        raise TaskValidationError(str(path), "-", "not valid UTF-8 text") from None


def load_case_file(path: PackPath) -> CaseFile:
    """Load one ICAE case file strictly.

    Args:
        path: A ``<stem>.json`` file holding ``{"description", "cases": [{"input", "expected_output"}]}``.

    Returns:
        The parsed :class:`CaseFile`.

    Raises:
        TaskValidationError: naming the file and field when the file is not JSON or not in the format.
    """
    raw = _read_json(path)
    if not isinstance(raw, dict):
        raise TaskValidationError(str(path), "-", f"expected a JSON object, got {type(raw).__name__}")
    try:
        parsed = _CaseFileJson.model_validate(raw)
    except ValidationError as exc:
        _raise_from(path, exc)
    cases = tuple(TestCase(input=c.input, expected_output=c.expected_output) for c in parsed.cases)
    return CaseFile(stem=path.stem, description=parsed.description, cases=cases)


def _load_tier(pack: PackPath, tier: str) -> tuple[CaseFile, ...]:
    folder = pack / "cases" / tier
    if not folder.is_dir():
        return ()
    files: list[PackPath] = sorted(folder.glob("*.json"), key=str)
    return tuple(load_case_file(p) for p in files)


def _check_enhanced_distinct(pack: PackPath, tests: TestTiers) -> None:
    native: dict[str, str] = {}
    for case_file in tests.native:
        for j, case in enumerate(case_file.cases):
            native.setdefault(json.dumps(case.input, sort_keys=True), f"{case_file.stem}.json cases[{j}]")
    for case_file in tests.enhanced:
        for i, case in enumerate(case_file.cases):
            twin = native.get(json.dumps(case.input, sort_keys=True))
            if twin:
                file = pack / "cases" / "enhanced" / f"{case_file.stem}.json"
                raise TaskValidationError(str(file), f"cases[{i}].input", f"identical to native case {twin}")


def read_yaml_mapping(file: PackPath) -> dict[str, Any]:
    """Return the YAML mapping in ``file``.

    Raises:
        TaskValidationError: naming ``file`` when it is missing, not YAML or not a mapping.
    """
    if not file.is_file():
        raise TaskValidationError(str(file), "-", "missing task file")
    try:
        raw = yaml.load(file.read_text(encoding="utf-8"), Loader=_YAML_LOADER)  # noqa: S506 - a safe loader
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise TaskValidationError(str(file), "-", f"not valid YAML{where}") from None
    except UnicodeDecodeError:
        raise TaskValidationError(str(file), "-", "not valid UTF-8 text") from None
    if not isinstance(raw, dict):
        raise TaskValidationError(str(file), "-", f"expected a mapping, got {type(raw).__name__}")
    return raw


def validate_model(model: type[_M], file: PackPath, raw: Any) -> _M:
    """Validate ``raw`` as ``model``; a failure raises :class:`TaskValidationError` naming the file and field."""
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        _raise_from(file, exc)


def _read_spec(pack: PackPath) -> _PackFile:
    file = pack / TASK_FILE
    spec = validate_model(_PackFile, file, read_yaml_mapping(file))
    _check_ids(file, spec, pack)
    return spec


def _check_ids(file: PackPath, spec: _PackFile, pack: PackPath) -> None:
    if spec.id != pack.name:
        raise TaskValidationError(str(file), "id", f"must equal the directory name {pack.name!r}, got {spec.id!r}")
    known: set[str] = set()
    for i, record in enumerate(spec.constraints):
        if record.constraint_id in known:
            raise TaskValidationError(
                str(file), f"constraints[{i}].constraint_id", f"duplicate constraint id {record.constraint_id!r}"
            )
        known.add(record.constraint_id)
    for level, level_spec in spec.levels.items():
        for j, cid in enumerate(level_spec.hidden):
            if cid not in known:
                raise TaskValidationError(
                    str(file), f"levels.{level}.hidden[{j}]", f"unknown constraint id {cid!r}; known: {sorted(known)}"
                )


def _read_prd(pack: PackPath, level: str) -> str:
    path = pack / "prd" / f"{level}.md"
    if not path.is_file():
        raise TaskValidationError(str(path), "-", f"missing PRD file for level {level}")
    return path.read_text(encoding="utf-8").strip() + "\n"


def _level_specs(pack: PackPath, spec: _PackFile, public: tuple[CaseFile, ...]) -> dict[Level, LevelSpec]:
    by_id = {c.constraint_id: c for c in spec.constraints}
    boilerplate = standard_records(spec.language, public) if spec.standard_records else ()
    levels: dict[Level, LevelSpec] = {}
    order: list[Level] = [lv for lv in _PACK_LEVELS if lv in spec.levels]
    for level in [*order, "ground"]:
        prd = _read_prd(pack, level)
        if level in ("L3", "ground"):
            prd += public_cases_section(public)
        hidden: tuple[HiddenConstraint, ...] = ()
        if level != "ground":
            hidden = tuple(by_id[cid] for cid in spec.levels[cast(PackLevel, level)].hidden)
            if level in ("L1", "L2"):
                hidden += boilerplate
        pointers = tuple(p for p in spec.context_pointers if p.vague_reference.lower() in prd.lower())
        levels[level] = LevelSpec(
            prd=prd,
            hidden_constraints=hidden,
            context_pointers=pointers if level != "ground" else (),
            golden_api_signature=spec.golden_api_signature,
            fallback_response=spec.fallback_response,
        )
    return levels


def _golden(pack: PackPath) -> tuple[Path | None, tuple[GoldenFile, ...]]:
    """The pack's golden solution: a directory on disk, or the files of an in-memory pack."""
    golden = pack / "golden"
    if isinstance(golden, MemoryPath):
        files = golden.below()
        executable = {path for path in golden.executables if path.startswith("golden/")}
        entries = (
            GoldenFile(path=p, content=text, executable=f"golden/{p}" in executable) for p, text in files.items()
        )
        return None, tuple(sorted(entries, key=lambda entry: entry.path))
    return (golden.resolve() if golden.is_dir() else None), ()


def load_pack(pack: Path | MemoryPath, *, origin: str | None = None) -> Task:
    """Load and validate the task pack in directory ``pack``.

    Args:
        pack: The pack directory (holding ``task.yaml``).
        origin: How the task was named (``builtin`` or the path); defaults to the path.

    Returns:
        The validated, frozen :class:`Task`.

    Raises:
        TaskValidationError: one line naming the file and the field that is wrong.
    """
    pack = pack if isinstance(pack, MemoryPath) else Path(pack)
    spec = _read_spec(pack)
    tests = TestTiers(**{tier: _load_tier(pack, tier) for tier in TIERS})
    _check_enhanced_distinct(pack, tests)
    fallback = default_runtime(spec.language)
    runtime = Runtime(
        toolchain=tuple(spec.runtime.toolchain) if spec.runtime and spec.runtime.toolchain else fallback.toolchain,
        image=spec.runtime.image if spec.runtime and spec.runtime.image else fallback.image,
    )
    golden, golden_files = _golden(pack)
    start = pack / "start"
    return Task(
        id=spec.id,
        title=spec.title,
        language=spec.language.lower(),
        runtime=runtime,
        levels=_level_specs(pack, spec, tests.public),
        tests=tests,
        golden_dir=golden,
        golden_files=golden_files,
        start_dir=start.resolve() if isinstance(start, Path) and start.is_dir() else None,
        case_timeout_s=spec.case_timeout_s,
        tier_timeout_s=spec.tier_timeout_s,
        first_output_s=spec.first_output_s,
        default_level="L1" if "L1" in spec.levels else "ground",
        origin=origin or str(pack),
        meta=spec.meta,
    )
