"""Revision packs: loading, validation errors naming the file and field, built-in names."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from revision_packs import CRITERIA, write_revision_pack

from icae_env.errors import TaskNotFoundError, TaskValidationError
from icae_env.revision import list_revision_tasks, load_revision_pack, load_revision_task
from icae_env.revision.check_models import TextMatch
from icae_env.revision.models import Criterion


def test_pack_loads_with_layout_fields(revision_pack: Path) -> None:
    task = load_revision_pack(revision_pack)
    assert task.start_dir == (revision_pack / "start").resolve()
    assert task.golden_dir == (revision_pack / "golden").resolve()
    assert Path(task.attachments[0].source).is_file() and task.attachments[0].dest == "docs/note.md"
    assert task.levels == {"L1": None} and task.prd() == task.request
    assert task.user_agent_data().hidden_constraints == ()
    with pytest.raises(Exception, match="frozen"):
        task.id = "x"  # type: ignore[misc]


def _edit(pack: Path, **changes: object) -> None:
    spec = yaml.safe_load((pack / "task.yaml").read_text())
    spec.update(changes)
    (pack / "task.yaml").write_text(yaml.safe_dump(spec))


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"colour": "red"}, "colour", "unknown field"),
        ({"id": "other"}, "id", "directory name"),
        ({"start_dir": "/etc"}, "start_dir", "given by the pack layout"),
        ({"criteria": []}, "criteria", "at least 1"),
        ({"criteria": [CRITERIA[3], CRITERIA[3]]}, "-", "duplicate criterion id"),
        ({"criteria": [{**CRITERIA[1], "check": CRITERIA[3]["check"]}]}, "criteria[0]", "needs a browser check"),
        ({"criteria": [{**CRITERIA[3], "check": {"type": "shell", "run": "x"}}]}, "criteria[0].check", "type"),
        (
            {
                "criteria": [
                    {**CRITERIA[3], "check": {"type": "command", "run": "x", "expect": [{"stdout": {"regex": "("}}]}}
                ]
            },
            "criteria[0].check.command.expect[0].stdout.regex",
            "regular expression",
        ),
        ({"attachments": [{"source": "attachments/missing.png", "dest": "a.png"}]}, "attachments[0].source", "no file"),
        (
            {"attachments": [{"source": "attachments/note.md", "dest": "../x.md"}]},
            "attachments[0].dest",
            "relative to the workspace",
        ),
    ],
)
def test_malformed_packs_name_file_and_field(revision_pack: Path, changes: dict, field: str, message: str) -> None:
    _edit(revision_pack, **changes)
    with pytest.raises(TaskValidationError) as caught:
        load_revision_pack(revision_pack)
    assert caught.value.file.endswith("task.yaml")
    assert caught.value.field.startswith(field) or field == "-", caught.value
    assert message in str(caught.value)


def test_http_checks_need_an_app(tmp_path: Path) -> None:
    pack = write_revision_pack(tmp_path, criteria=[CRITERIA[6]], app=None)
    with pytest.raises(TaskValidationError, match="needs the task's app"):
        load_revision_pack(pack)


def test_missing_start_dir_and_bad_yaml(revision_pack: Path) -> None:
    shutil.rmtree(revision_pack / "start")
    with pytest.raises(TaskValidationError, match="missing starting workspace"):
        load_revision_pack(revision_pack)
    (revision_pack / "task.yaml").write_text("id: [unclosed")
    with pytest.raises(TaskValidationError, match="not valid YAML"):
        load_revision_pack(revision_pack)


def test_model_rules() -> None:
    with pytest.raises(ValueError, match="needs equals"):
        TextMatch()
    with pytest.raises(ValueError, match="action 'type' needs"):
        Criterion.model_validate(
            {**CRITERIA[0], "check": {**CRITERIA[0]["check"], "actions": [{"do": "type", "selector": "#q"}]}}
        )


def test_builtin_names() -> None:
    names = list_revision_tasks()
    assert len(names) >= 4 and all(n.startswith("revision/") for n in names)
    assert load_revision_task(names[0]).id == names[0].split("/")[1]
    with pytest.raises(TaskNotFoundError, match="did you mean"):
        load_revision_task("revision/notes-apii")
