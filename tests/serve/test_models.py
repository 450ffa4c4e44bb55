from __future__ import annotations

import json

import pytest

pytest.importorskip("openenv", reason='the OpenEnv models need the openenv extra: pip install "icae-env[openenv]"')

from pydantic import ValidationError  # noqa: E402

from icae_env.serve import IcaeAction, IcaeObservation, IcaeState  # noqa: E402


def test_a_tool_call_becomes_the_in_process_dict():
    action = IcaeAction(tool="view", path="src", range=(1, 3))
    assert action.to_env() == {"tool": "view", "path": "src", "range": (1, 3)}
    assert IcaeAction(tool="submit").to_env() == {"tool": "submit"}


def test_text_is_handed_over_as_it_is():
    assert IcaeAction(text="").to_env() == ""
    assert IcaeAction(text='{"tool": "bash", "command": "ls"}').to_env() == '{"tool": "bash", "command": "ls"}'


@pytest.mark.parametrize("fields", [{}, {"tool": "bash", "command": "ls", "text": "ls"}])
def test_neither_or_both_forms_is_a_json_able_validation_error(fields):
    with pytest.raises(ValidationError, match="either 'tool'") as caught:
        IcaeAction(**fields)
    json.dumps(caught.value.errors())  # OpenEnv's HTTP 422 answer holds these errors


def test_an_unknown_field_is_rejected():
    with pytest.raises(ValidationError, match="Extra inputs are not permitted"):
        IcaeAction.model_validate({"tool": "bash", "cmd": "ls"})


def test_the_tool_is_not_checked_here_so_agent_mistakes_reach_the_env():
    assert IcaeAction(tool="dance").to_env() == {"tool": "dance"}


def test_observation_and_state_defaults():
    assert IcaeObservation().model_dump(exclude={"metadata"}) == {
        "done": False, "reward": None, "output": "", "source": 2, "exit_code": -1, "questions_left": 0, "step": 0,
        "terminated": False, "truncated": False, "info": {},
    }  # fmt: skip
    assert IcaeState(env_id="icae/Clarify-v0").model_dump() == {
        "episode_id": None, "step_count": 0, "env_id": "icae/Clarify-v0", "task": None, "level": None, "done": False,
        "total_reward": 0.0,
    }  # fmt: skip
