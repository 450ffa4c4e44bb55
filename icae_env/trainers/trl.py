"""TRL adapters: icae-env episodes as environments of ``trl.GRPOTrainer(environment_factory=...)``.

The protocol, as TRL 1.16's ``GRPOTrainer`` implements it:

- the factory is called with no arguments, once at start-up (a probe that reads the tools) and then whenever a batch
  needs more instances than exist; instances are pooled and reused, one per rollout;
- every public function of the instance's class except ``reset`` and ``get_reward`` is a tool; its name, type hints
  and Google-style docstring become the tool schema put in the prompt (so the adapters have no other public
  methods: no ``close``, see :func:`close_all`);
- ``reset(**row)`` is called before each rollout with every column of its dataset row (``prompt`` too); the text
  it returns is appended to the row's last user message;
- the model's tool calls are parsed by the tokenizer's response template and called as ``tool(**arguments)``; the
  returned text is the tool message (an exception becomes ``{"error": ...}``). The rollout ends when a turn has no
  tool call, at ``max_tool_calling_iterations`` or at ``max_completion_length``;
- ``get_reward()`` is called once per finished rollout; its value is the reward column named after the class.
  TRL never closes an instance.

So :class:`ProjectBuildTools` (``icae/ProjectBuild-v0``: bash, write_file, str_replace, view, ask, submit) and
:class:`ClarifyTools` (``icae/Clarify-v0``: ask, stop) step one env through a plain episode: the tool arguments are
the env's action fields, the tool result is the observation's ``output``, and ``get_reward`` returns the episode
return (the sum of the step rewards). An episode the model left unfinished (a turn without a tool call, the turn or
token limit) is finished then with ``submit`` / ``stop`` and scored like any other. ``get_reward`` then closes the
env, which removes the episode's sandbox; the next ``reset`` starts a new one. :func:`close_all` closes every
adapter of the process (for a run that stopped with an exception), and each adapter closes its env when it is
garbage-collected or the interpreter exits.

Example (needs ``pip install "icae-env[trl]"`` and a model with a tool-calling chat template)::

    from trl import GRPOConfig, GRPOTrainer
    from icae_env.trainers.trl import environment_factory, task_dataset

    trainer = GRPOTrainer(model=model, args=GRPOConfig(...), processing_class=tokenizer,
                          train_dataset=task_dataset("icae/ProjectBuild-v0", ["builtin/unidiff"], seeds=range(8)),
                          environment_factory=environment_factory("icae/ProjectBuild-v0"))
"""

from __future__ import annotations

import functools
import importlib
import itertools
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import Any, ClassVar

import icae_env
from icae_env.errors import ArgumentTypeError, DependencyNotInstalled
from icae_env.kinds import check_level
from icae_env.registration import unknown
from icae_env.tasks import list_tasks

__all__ = [
    "ADAPTERS",
    "ClarifyTools",
    "EPISODE_OVER",
    "INSTRUCTIONS",
    "ProjectBuildTools",
    "close_all",
    "environment_factory",
    "task_dataset",
    "task_rows",
    "tool_format_reward",
]

#: The tool result once the episode has ended (the call does not reach the env).
EPISODE_OVER = "The episode is over; no more actions are carried out."

_LIVE: weakref.WeakSet[_EpisodeTools] = weakref.WeakSet()


def _require(module: str) -> Any:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise DependencyNotInstalled(module, "trl") from None


class _EpisodeTools:
    """One env, stepped by tool calls; ``reset``/``get_reward`` follow TRL's protocol (see the module docstring).

    Its one tool, ``ask``, is every adapter's; subclasses add theirs.

    Attributes:
        env: The env (``icae_env.make(env_id, **env_kwargs)``).
        actions: The actions sent to the env this episode (tool calls as action dicts, then any finishing action).
        info: The last ``info`` the env returned (privileged: for logging and tests, never for the model).
        reward: The episode return so far.
        done: Whether the episode has ended.
        auto_finished: Whether ``get_reward`` had to finish the episode.
        tool_calls: The model's tool calls that reached an env, over every instance of the class in this process
            (a class attribute; finishing actions of ``get_reward`` are not counted).
    """

    env_id: ClassVar[str]
    finish: ClassVar[dict[str, Any]]
    tool_calls: ClassVar[int] = 0

    def __init__(self, **env_kwargs: Any) -> None:
        self.env = icae_env.make(self.env_id, **env_kwargs)
        self.actions: list[dict[str, Any]] = []
        self.info: dict[str, Any] = {}
        self.reward = 0.0
        self.done = False
        self.auto_finished = False
        weakref.finalize(self, self.env.close)
        _LIVE.add(self)

    def reset(self, task: str | None = None, level: str | None = None, seed: int | None = None, **row: Any) -> str:
        """Start the episode of a dataset row; return the first observation (appended to the row's prompt).

        Args:
            task: The row's task name (None: the env draws one).
            level: The row's level (None: the env's default).
            seed: The row's seed (None: the env's generator goes on).
            **row: The row's other columns (``prompt`` and any others), ignored.
        """
        options = {key: value for key, value in (("task", task), ("level", level)) if value is not None}
        observation, self.info = self.env.reset(seed=seed, options=options or None)
        self.actions, self.reward, self.done, self.auto_finished = [], 0.0, False, False
        return str(observation["output"])

    def get_reward(self) -> float:
        """Finish the episode if the model did not, close the env (its sandbox) and return the episode return."""
        if not self.done:
            self._act(dict(self.finish))
            self.auto_finished = True
        self.env.close()
        return self.reward

    def ask(self, question: str) -> str:
        """Ask the user a clarification question about the task (it counts against the question budget).

        Args:
            question: The question.

        Returns:
            The user's reply.
        """
        return self._call("ask", question=question)

    def _call(self, tool: str, **arguments: Any) -> str:
        if not self.done:
            type(self).tool_calls += 1
        return self._act({"tool": tool, **{k: v for k, v in arguments.items() if v is not None}})

    def _act(self, action: dict[str, Any]) -> str:
        if self.done:
            return EPISODE_OVER
        self.actions.append(action)
        observation, reward, terminated, truncated, self.info = self.env.step(action)
        self.reward += float(reward)
        self.done = bool(terminated or truncated)
        return str(observation["output"])


class ProjectBuildTools(_EpisodeTools):
    """``icae/ProjectBuild-v0`` for TRL: tools bash, write_file, str_replace, view, ask, submit.

    Args:
        **env_kwargs: Arguments of ``icae_env.make("icae/ProjectBuild-v0", ...)`` (``sandbox``, ``budget``,
            ``max_steps``, ...); a row's ``task``/``level``/``seed`` choose its episode.
    """

    env_id = "icae/ProjectBuild-v0"
    finish = {"tool": "submit"}

    def bash(self, command: str, timeout: float | None = None) -> str:
        """Run a shell command in the workspace session (cd and variables persist between calls).

        Args:
            command: The command line.
            timeout: Seconds before the command is killed (default: the sandbox's).

        Returns:
            The command's output.
        """
        return self._call("bash", command=command, timeout=timeout)

    def write_file(self, path: str, content: str) -> str:
        """Create or replace a workspace file.

        Args:
            path: The file's path, relative to the workspace root.
            content: The whole new content.

        Returns:
            What was written.
        """
        return self._call("write_file", path=path, content=content)

    def str_replace(self, path: str, old: str, new: str) -> str:
        """Replace the single occurrence of `old` with `new` in a workspace file.

        Args:
            path: The file's path, relative to the workspace root.
            old: The text to replace; it must occur exactly once.
            new: The replacement.

        Returns:
            What was replaced.
        """
        return self._call("str_replace", path=path, old=old, new=new)

    def view(self, path: str = ".", range: list[int] | None = None) -> str:
        """Show a file with line numbers, or list a directory.

        Args:
            path: A path relative to the workspace root.
            range: The first and last line to show (1-based), e.g. [1, 40].

        Returns:
            The numbered lines or the listing.
        """
        return self._call("view", path=path, range=range)

    def submit(self) -> str:
        """Deliver the workspace: it is scored on hidden tests and the episode ends.

        Returns:
            A confirmation.
        """
        return self._call("submit")


class ClarifyTools(_EpisodeTools):
    """``icae/Clarify-v0`` for TRL: tools ask and stop; the reward is the env's (records recovered - question cost).

    Args:
        **env_kwargs: Arguments of ``icae_env.make("icae/Clarify-v0", ...)`` (``budget``, ``question_cost``, ...).

    Example:
        >>> tools = ClarifyTools(budget=3)
        >>> tools.reset(task="builtin/dep-resolver", level="L1", seed=0, prompt=[]).splitlines()[0][:24]
        '## Product Requirement D'
        >>> reply = tools.ask("how are cycles reported?")
        >>> round(tools.get_reward(), 2), tools.auto_finished, tools.actions[-1]  # no stop: get_reward stops
        (0.08, True, {'tool': 'stop'})
    """

    env_id = "icae/Clarify-v0"
    finish = {"tool": "stop"}

    def stop(self) -> str:
        """Stop asking: the episode ends.

        Returns:
            A confirmation.
        """
        return self._call("stop")


#: The adapter of each supported env id.
ADAPTERS: dict[str, type[_EpisodeTools]] = {"icae/ProjectBuild-v0": ProjectBuildTools, "icae/Clarify-v0": ClarifyTools}

#: The default instruction of each env's rows (the env's first observation follows it).
INSTRUCTIONS = {
    "icae/ProjectBuild-v0": "Build the project described below with the tools, then call submit.\n\n",
    "icae/Clarify-v0": "Ask the user, with the ask tool, what the PRD below leaves open; call stop when done.\n\n",
}


def _adapter(env_id: str) -> type[_EpisodeTools]:
    if env_id not in ADAPTERS:
        raise unknown("TRL env", env_id, list(ADAPTERS))
    return ADAPTERS[env_id]


def environment_factory(env_id: str = "icae/ProjectBuild-v0", **env_kwargs: Any) -> Callable[[], _EpisodeTools]:
    """Return the zero-argument factory to pass as ``GRPOTrainer(environment_factory=...)``.

    Args:
        env_id: ``icae/ProjectBuild-v0`` or ``icae/Clarify-v0``.
        **env_kwargs: Arguments of the env (``icae_env.make(env_id, **env_kwargs)``).

    Raises:
        DependencyNotInstalled: when TRL is not installed (the ``trl`` extra).
        UnknownNameError: for another env id.
    """
    _require("trl")
    adapter = _adapter(env_id)
    adapter(**env_kwargs).env.close()  # fail now on a bad argument, not inside the trainer
    return functools.partial(adapter, **env_kwargs)


def task_rows(
    env_id: str = "icae/ProjectBuild-v0",
    tasks: Sequence[str] | None = None,
    levels: Sequence[str] = ("L1",),
    seeds: Iterable[int] = (0,),
    instruction: str | None = None,
) -> list[dict[str, Any]]:
    """Return dataset rows (``prompt``, ``task``, ``level``, ``seed``): every task x level x seed.

    Args:
        env_id: The env the rows are for (it chooses the default instruction).
        tasks: Task names (default: the built-in suite).
        levels: Levels.
        seeds: Seeds.
        instruction: The user message the first observation is appended to (default: :data:`INSTRUCTIONS`).

    Raises:
        UnknownNameError: for an env id without an adapter.
        ArgumentError: for a bad level.
        ArgumentTypeError: for a task or seed of the wrong type.
    """
    _adapter(env_id)
    chosen = list(list_tasks() if tasks is None else tasks)
    seed_list = list(seeds)
    for level in levels:
        check_level(level)
    if not all(isinstance(t, str) for t in chosen) or not all(isinstance(s, int) for s in seed_list):
        raise ArgumentTypeError(f"tasks must be names and seeds ints, got {chosen!r} and {seed_list!r}")
    text = INSTRUCTIONS[env_id] if instruction is None else instruction
    return [
        {"prompt": [{"role": "user", "content": text}], "task": task, "level": level, "seed": seed}
        for task, level, seed in itertools.product(chosen, levels, seed_list)
    ]


def task_dataset(*args: Any, **kwargs: Any) -> Any:
    """Return :func:`task_rows` (same arguments) as a ``datasets.Dataset``, the ``train_dataset`` of ``GRPOTrainer``.

    Raises:
        DependencyNotInstalled: when ``datasets`` (installed with TRL, the ``trl`` extra) is missing.
    """
    datasets = _require("datasets")
    return datasets.Dataset.from_list(task_rows(*args, **kwargs))


def tool_format_reward(completions: list[Any], **kwargs: Any) -> list[float]:
    """A reward function of its own column (pass it in ``reward_funcs``): the model's tool-call format.

    Each completion (TRL's messages of one rollout) earns the share of its assistant messages that hold a tool call
    whose every call TRL ran without an error (a known tool, arguments that fit); a completion without a message
    earns 0. The env's reward stays in its own column (the adapter's class name).

    Example:
        >>> call = {"type": "function", "function": {"name": "ask", "arguments": {"question": "Which?"}}}
        >>> good = [{"role": "assistant", "tool_calls": [call]}, {"role": "tool", "name": "ask", "content": "A."}]
        >>> bad = [{"role": "assistant", "tool_calls": [call]}, {"role": "tool", "content": "{'error': 'no'}"}]
        >>> tool_format_reward([good + [{"role": "assistant", "content": "Done."}], bad, []])
        [0.5, 0.0, 0.0]
    """
    rewards = []
    for messages in completions:
        turns = good = 0
        for index, message in enumerate(messages if isinstance(messages, list) else []):
            if message.get("role") != "assistant":
                continue
            turns += 1
            replies = itertools.takewhile(lambda m: m.get("role") == "tool", messages[index + 1 :])
            failed = any(str(m.get("content", "")).startswith("{'error'") for m in replies)
            good += bool(message.get("tool_calls")) and not failed
        rewards.append(good / turns if turns else 0.0)
    return rewards


def close_all() -> int:
    """Close the env of every adapter of this process (their sandboxes); return how many there were."""
    live = list(_LIVE)
    for adapter in live:
        adapter.env.close()
    return len(live)
