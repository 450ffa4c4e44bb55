"""Hostile agents: hangs, fork bursts, floods of output, path escapes, garbage actions, and peeking for answers.

Every misbehaviour must come back as an observation (or an action error) and leave the env usable.
"""

from __future__ import annotations

import os
import secrets
import shlex
import time
from collections.abc import Callable
from pathlib import Path

import pytest

import icae_env
from icae_env.envs.tools import MAX_OBSERVATION_CHARS
from icae_env.sandbox.local import bwrap_available
from icae_env.tasks import load_task
from icae_env.tasks.models import case_text

ENV_ID = "icae/ProjectBuild-v0"
OBSERVATION_BOUND = MAX_OBSERVATION_CHARS + 1000
SHORT = 2  # seconds: the time limit given to commands that are meant to hang
ISOLATIONS = [
    pytest.param("bwrap", marks=pytest.mark.skipif(not bwrap_available(), reason="bubblewrap is not installed")),
    "none",
]
HUGE_OUTPUT = "head -c 50000000 /dev/zero | tr '\\0' a"


@pytest.fixture
def make_env(mini_pack: Path) -> Callable:
    """Build envs (mini-echo pack, short default command limit) and close them all at teardown."""
    envs = []

    def factory(**kwargs):
        kwargs.setdefault("task", str(mini_pack))
        options = {"default_timeout": 30.0, **kwargs.pop("sandbox_options", {})}
        env = icae_env.make(ENV_ID, sandbox_options=options, **kwargs)
        env.reset(seed=0)
        envs.append(env)
        return env

    yield factory
    for env in envs:
        env.close()


@pytest.fixture
def env(make_env):
    return make_env()


def bash(env, command: str, timeout: float | None = None) -> tuple[dict, dict]:
    action = {"tool": "bash", "command": command} | ({"timeout": timeout} if timeout else {})
    obs, reward, terminated, truncated, info = env.step(action)
    assert obs in env.observation_space
    assert (reward, terminated, truncated) == (0.0, False, False)
    return obs, info


def assert_still_works(env) -> None:
    obs, info = bash(env, "echo alive")
    assert (obs["output"], obs["exit_code"], info["action_error"]) == ("alive\n", 0, None)


def count_processes(argv: list[str]) -> int:
    """How many live host processes run exactly ``argv`` (zombies have an empty cmdline and do not count)."""
    wanted = "\0".join(argv).encode() + b"\0"
    count = 0
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                count += handle.read() == wanted
        except OSError:
            continue
    return count


def wait_for_count(argv: list[str], wanted: int, patience_s: float = 10.0) -> int:
    """Poll until ``wanted`` processes run ``argv`` (forks take a moment to exec, kills to be reaped)."""
    deadline = time.monotonic() + patience_s
    while count_processes(argv) != wanted and time.monotonic() < deadline:
        time.sleep(0.05)
    return count_processes(argv)


# -- hangs, bursts and floods --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command",
    ["sleep 100", "while :; do :; done", "trap '' USR1; while :; do :; done", "exec sleep 100"],
    ids=["child", "builtin-loop", "ignores-the-trap", "replaces-the-shell"],
)
def test_a_hanging_command_times_out(env, command):
    obs, info = bash(env, command, timeout=SHORT)
    assert obs["exit_code"] == 124
    assert info["action_error"] is not None and "timed out" in info["action_error"]
    assert f"timed out after {SHORT} s" in obs["output"]
    assert_still_works(env)


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_a_burst_of_background_processes_is_contained(make_env, isolation):
    env = make_env(sandbox_options={"isolation": isolation})
    duration = f"30.{secrets.randbelow(10**6):06d}"  # `sleep 30`, made unique so other runs cannot interfere
    argv = ["sleep", duration]
    obs, info = bash(env, f"for i in $(seq 500); do sleep {duration} & done; echo started", timeout=60)
    assert (obs["output"], info["action_error"]) == ("started\n", None)
    assert wait_for_count(argv, 500) == 500, "the burst must really have started"
    assert_still_works(env)
    env.close()
    assert wait_for_count(argv, 0) == 0, "close() must kill every process the agent left behind"


def test_huge_output_is_bounded(env):
    obs, _ = bash(env, HUGE_OUTPUT, timeout=30)
    assert isinstance(obs["output"], str) and 0 < len(obs["output"]) <= OBSERVATION_BOUND
    assert set(obs["output"][:1000]) == {"a"}


def test_huge_output_is_capped_by_the_env(make_env):
    """With a large sandbox output limit, the env's own observation cap is what bounds the text."""
    env = make_env(sandbox_options={"output_limit": 1_000_000})
    obs, info = bash(env, HUGE_OUTPUT, timeout=30)
    assert (obs["exit_code"], info["action_error"]) == (0, None), "50 MB must not hit the time limit"
    assert MAX_OBSERVATION_CHARS < len(obs["output"]) <= OBSERVATION_BOUND
    assert obs["output"].endswith("[... observation truncated ...]\n")
    assert_still_works(env)


def test_an_output_limit_kill_is_not_reported_as_a_time_out(env):
    obs, info = bash(env, "head -c 5000000 /dev/zero | tr '\\0' a; sleep 5", timeout=30)
    assert len(obs["output"]) <= OBSERVATION_BOUND
    assert "timed out" not in obs["output"] and "timed out" not in (info["action_error"] or "")


def test_the_command_after_a_huge_output_is_not_killed(env):
    for _ in range(5):  # the bug is a race that the previous command's output wins ~14 times in 15
        bash(env, HUGE_OUTPUT, timeout=30)
        assert_still_works(env)


def test_binary_output_is_text(env):
    obs, info = bash(env, "head -c 4096 /dev/urandom; printf '\\377\\376\\0end'")
    assert isinstance(obs["output"], str) and obs["output"].endswith("end")
    assert obs["output"].encode("utf-8")  # valid Unicode: no lone surrogates
    assert info["action_error"] is None
    assert_still_works(env)


# -- path escapes --------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("tool", ["write_file", "view", "str_replace"])
def test_file_tools_cannot_leave_the_workspace(env, tool):
    workspace = env.unwrapped.workspace
    bash(env, "ln -s /etc link && ln -s .. up && mkdir inner && ln -s ../.. inner/upup")
    marker = f"icae-escape-{secrets.token_hex(4)}"
    for path in ("../" + marker, f"/etc/{marker}", f"link/{marker}", f"up/{marker}", f"inner/upup/{marker}"):
        action = {"tool": tool, "path": path}
        action |= {
            "write_file": {"content": "pwned"},
            "view": {},
            "str_replace": {"old": "a", "new": "b"},
        }[tool]
        obs, _, _, _, info = env.step(action)
        assert info["action_error"] is not None, path
        assert "outside the workspace" in info["action_error"] or "escapes the workspace" in info["action_error"]
        assert obs["output"].startswith("Action error:") and obs["source"] == 2
    assert not (workspace.parent / marker).exists()
    assert not (workspace.parent.parent / marker).exists()
    assert not Path("/etc", marker).exists()
    obs, *_ = env.step({"tool": "view", "path": "link/passwd"})
    assert "root:" not in obs["output"]
    assert_still_works(env)


# -- malformed actions ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("action", "explanation"),
    [
        ({"tool": "rm", "path": "/"}, "expected 'tool' to be one of bash, write_file"),
        ({"command": "ls"}, "unknown or missing tool"),
        ("{not json", "action is not valid JSON"),
        (42, "action must be a dict, an action model or a JSON object; got int"),
        (None, "got NoneType"),
        ({"tool": "bash"}, "command: Field required"),
        ({"tool": "write_file", "path": "x"}, "content: Field required"),
        ({"tool": "bash", "command": "ls", "sudo": True}, "sudo: unknown field"),
        ({"tool": "bash", "command": "ls", "timeout": -1}, "timeout: Input should be greater than 0"),
        ({"tool": "bash", "command": ""}, "command: String should have at least 1 character"),
        ({"tool": "write_file", "path": "big", "content": "x" * 20_000_000}, "at most 5000000 characters"),
    ],
    ids=["unknown-tool", "no-tool", "bad-json", "int", "none", "no-command", "no-content", "extra-field",
         "bad-timeout", "empty-command", "20MB-content"],
)  # fmt: skip
def test_malformed_actions_are_explained(env, action, explanation):
    obs, reward, terminated, truncated, info = env.step(action)
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert explanation in info["action_error"]
    assert obs["output"] == f"Action error: {info['action_error']}"
    assert (obs["source"], obs["exit_code"], info["tool"]) == (2, -1, "invalid")
    assert len(obs["output"]) < 1000, "the error must not echo the action back"
    assert info["counters"]["action_errors"] == 1
    assert not (env.unwrapped.workspace / "big").exists()
    assert_still_works(env)


# -- all of it in one episode --------------------------------------------------------------------------------------


def test_the_env_survives_a_hostile_episode(make_env, mini_task):
    # A large sandbox output limit keeps the 50 MB step below the output-size kill.
    env = make_env(sandbox_options={"output_limit": 1_000_000})
    bash(env, "sleep 100", timeout=SHORT)
    bash(env, "for i in $(seq 500); do sleep 30 & done; echo started", timeout=60)
    bash(env, HUGE_OUTPUT, timeout=30)
    bash(env, "head -c 4096 /dev/urandom")
    bash(env, "ln -s /etc link")
    hostile = [
        {"tool": "write_file", "path": "../x", "content": "x"},
        {"tool": "write_file", "path": "/etc/x", "content": "x"},
        {"tool": "write_file", "path": "link/x", "content": "x"},
        {"tool": "nope"},
        "{",
        42,
        {"tool": "bash"},
        {"tool": "write_file", "path": "big", "content": "x" * 20_000_000},
    ]
    for action in hostile:
        assert env.step(action)[4]["action_error"], action
    assert_still_works(env)
    golden = mini_task.golden_dir
    for path in sorted(p for p in golden.rglob("*") if p.is_file()):
        env.step({"tool": "write_file", "path": path.relative_to(golden).as_posix(), "content": path.read_text()})
    bash(env, "rm link")
    _, _, terminated, _, info = env.step({"tool": "submit"})
    assert terminated and info["score"]["overall"] == 1.0
    assert info["counters"]["action_errors"] == len(hostile) + 1  # + the time-out


def test_special_files_and_late_writes_do_not_break_scoring(env, mini_task):
    """A FIFO, a socket-like leftover and a background job that rewrites the delivery after submit."""
    golden = mini_task.golden_dir
    for path in sorted(p for p in golden.rglob("*") if p.is_file()):
        env.step({"tool": "write_file", "path": path.relative_to(golden).as_posix(), "content": path.read_text()})
    bash(env, "chmod +x rcb_tests/test.sh 2>/dev/null; mkfifo stuck.pipe; ln -s /etc/passwd outside")
    rewrite = "for i in $(seq 200); do echo 'raise SystemExit(1)' > adapter.py; sleep 0.02; done"
    bash(env, f"(sleep 0.3; {rewrite}) >/dev/null 2>&1 &")
    _, _, terminated, _, info = env.step({"tool": "submit"})
    assert terminated and info["score"]["overall"] == 1.0  # scored as it was at submit


# -- no peeking ----------------------------------------------------------------------------------------------------


def _distinctive_strings(task) -> list[str]:
    """A hidden expected-output line, and the longest line of each golden file: text the agent never sees."""
    seen = "\n".join([*(task.prd(level) for level in task.levels), *(str(f.to_json()) for f in task.tests.public)])
    expected = sorted(
        {
            line.strip()
            for case_file in task.tests.native
            for case in case_file.cases
            for line in case_text(case.expected_output).splitlines()
            if len(line.strip()) >= 12 and line.strip() not in seen
        },
        key=len,
    )
    golden = []
    for path in sorted(p for p in task.golden_dir.rglob("*") if p.is_file()):
        lines = [line.strip() for line in path.read_text().splitlines() if len(line.strip()) >= 30]
        if lines:
            golden.append(max(lines, key=len))
    assert expected and len(golden) >= 3, "the task must offer distinctive strings to look for"
    return [expected[-1], *golden]


@pytest.mark.skipif(
    not bwrap_available(),
    reason="only meaningful under bubblewrap isolation: without it the whole host disk (task packs included) "
    "is readable from the sandbox",
)
def test_the_agent_cannot_find_hidden_cases_or_the_golden(make_env):
    task = load_task("builtin/config-lint")
    env = make_env(task="builtin/config-lint", sandbox_options={"isolation": "bwrap"})
    strings = _distinctive_strings(task)
    package = task.id.replace("-", "_")
    # Controls: the same search must find planted copies, so an empty answer means "absent", not "broken".
    env.step({"tool": "write_file", "path": "probe.txt", "content": strings[0] + "\n"})
    env.step({"tool": "write_file", "path": "rcb_tests/test_cases/probe.json", "content": "{}"})
    patterns = " ".join(f"-e {shlex.quote(s)}" for s in strings)
    roots = "/usr /etc /workspace /tmp /root /bin /lib"
    obs, info = bash(env, f"grep -rIl -F {patterns} {roots} 2>/dev/null | head", timeout=180)
    assert info["action_error"] is None, "the search must finish"
    assert obs["output"].splitlines() == ["/workspace/probe.txt"]
    obs, info = bash(
        env,
        f"find / -path /proc -prune -o -path /sys -prune -o \\( -name '*.json' -path '*test_cases*' "
        f"-o -name {package} -o -name golden \\) -print 2>/dev/null | head",
        timeout=180,
    )
    assert info["action_error"] is None
    assert obs["output"].splitlines() == ["/workspace/rcb_tests/test_cases/probe.json"]
