"""Spaces for free-form text: any Unicode string up to a documented length, and every icae-env action.

``gymnasium.spaces.Text`` only admits characters from a fixed charset (alphanumerics by default), which would
reject shell commands, file contents and PRDs. :class:`UnicodeText` admits any ``str`` up to ``max_length``
characters; :class:`ActionSpace` admits every well-formed icae-env action (dict, pydantic model or JSON string).

Vector envs:
    ``gymnasium.make_vec(id, num_envs=n, vectorization_mode="async")`` works with the default settings (shared
    memory on), and so does ``"sync"``; both return the same values. Importing this module registers the text
    spaces with Gymnasium's vector utilities (the functions are in :mod:`icae_env.vector_spaces`):

    * **Batched spaces.** ``batch_space`` turns ``UnicodeText`` and ``ActionSpace`` into a
      :class:`~icae_env.vector_spaces.SpaceBatch` of ``n`` independently seeded copies (a ``Tuple``, as
      Gymnasium batches ``Text``). A batched observation is a dict: ``output`` a ``tuple`` of ``n`` ``str``;
      ``source``, ``exit_code``, ``questions_left`` and ``step`` int64 arrays of shape ``(n,)``.
    * **Batched actions.** ``step`` takes a list or tuple (or 1-D array) of ``n`` actions, one per env: dicts,
      action models or JSON strings (plain questions for ``icae/Clarify-v0``). A lone action where the batch
      belongs (a ``str``, a dict, a model) raises :class:`~icae_env.errors.ArgumentTypeError` and a batch of the
      wrong length :class:`~icae_env.errors.ArgumentError`, instead of being split into characters or keys. A
      malformed action inside the batch stays an agent mistake (``info["action_error"]`` of that env).
    * **Shared memory.** A ``UnicodeText(max_length)`` gets one slot of ``4 * max_length`` bytes per env (UTF-8
      needs at most 4 bytes a character) and a byte count per env. The worker writes the text's UTF-8 encoding
      (``surrogatepass``, so every Python ``str`` round-trips exactly: non-ASCII, empty, ``max_length``); a text
      over ``max_length`` characters raises :class:`~icae_env.errors.ArgumentError`, which the vector env
      re-raises. For the observations' ``output`` (201,000 characters) that is 804 KB per env. The parent reads
      through a :class:`~icae_env.vector_spaces.SharedTexts` view that decodes on access (``AsyncVectorEnv``
      reads its shared memory once, when built: Gymnasium's own ``Text`` decodes the buffer then and returns
      the construction-time strings ever after); its copies are plain tuples, so with the default ``copy=True``
      the observation holds a ``tuple`` exactly as in sync mode. With ``copy=False`` ``output`` is the live
      view, valid until the next ``reset`` or ``step``.
    * ``ActionSpace`` has no shared memory: actions travel to the workers through pipes, and no observation
      holds an action.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import numpy as np
from gymnasium import spaces
from gymnasium.spaces import Space
from gymnasium.vector import utils as vector_utils

from icae_env import vector_spaces
from icae_env.errors import ArgumentError

__all__ = ["UnicodeText", "ActionSpace", "MAX_OBSERVATION_CHARS", "SOURCES", "observation_space"]

# Characters used by sample(): printable ASCII, whitespace and a few non-ASCII letters and symbols.
_SAMPLE_CHARS = [chr(c) for c in range(32, 127)] + list("\n\té漢ß€→😀")


class UnicodeText(Space[str]):
    r"""Any Python ``str`` of at most ``max_length`` characters (newlines and any Unicode included).

    Example:
        >>> space = UnicodeText(10)
        >>> space.contains("ls -la\\n✓"), space.contains("x" * 11), space.contains(b"bytes")
        (True, False, False)
    """

    def __init__(self, max_length: int, seed: int | np.random.Generator | None = None) -> None:
        if not isinstance(max_length, int) or max_length < 1:
            raise ArgumentError(f"max_length must be a positive int, got {max_length!r}")
        self.max_length = max_length
        super().__init__(shape=None, dtype=str, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Text is not flattenable to a numpy vector."""
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        """Return a random string of 0..min(max_length, 32) characters."""
        length = int(self.np_random.integers(0, min(self.max_length, 32) + 1))
        picks = self.np_random.integers(0, len(_SAMPLE_CHARS), size=length)
        return "".join(_SAMPLE_CHARS[i] for i in picks)

    def contains(self, x: Any) -> bool:
        """Whether ``x`` is a str of at most ``max_length`` characters."""
        return isinstance(x, str) and len(x) <= self.max_length

    def to_jsonable(self, sample_n: Iterable[str]) -> list[str]:
        """Strings are already JSON-able."""
        return list(sample_n)

    def from_jsonable(self, sample_n: list[str]) -> list[str]:
        """Strings are already JSON-able."""
        return list(sample_n)

    def __repr__(self) -> str:
        return f"UnicodeText(max_length={self.max_length})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnicodeText) and other.max_length == self.max_length


class ActionSpace(Space[dict]):
    """Every well-formed action: a dict, an action model or a JSON string that :func:`parse_action` accepts.

    ``sample()`` returns random *valid* action dicts (mostly harmless shell commands, file writes, views and
    questions; never ``submit``) drawn from the space's own generator.
    """

    def __init__(self, seed: int | np.random.Generator | None = None) -> None:
        super().__init__(shape=None, dtype=None, seed=seed)

    @property
    def is_np_flattenable(self) -> bool:
        """Actions are not flattenable to a numpy vector."""
        return False

    def _word(self) -> str:
        length = int(self.np_random.integers(1, 9))
        return "".join(chr(int(c)) for c in self.np_random.integers(ord("a"), ord("z") + 1, size=length))

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        """Return a random valid action dict."""
        kind = int(self.np_random.integers(0, 4))
        word = self._word()
        if kind == 0:
            return {"tool": "bash", "command": f"echo {word}"}
        if kind == 1:
            content = UnicodeText(64, seed=self.np_random).sample()
            return {"tool": "write_file", "path": f"{word}.txt", "content": content}
        if kind == 2:
            return {"tool": "view", "path": "."}
        return {"tool": "ask", "question": f"what about {word}?"}

    def contains(self, x: Any) -> bool:
        """Whether ``x`` parses as an action."""
        from icae_env.actions import parse_action  # local import: actions imports the limits defined near here

        try:
            parse_action(x)
        except ValueError:
            return False
        return True

    def __repr__(self) -> str:
        return "ActionSpace(bash | write_file | str_replace | view | ask | submit)"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ActionSpace)


#: What produced an observation's text (the ``source`` observation field is its index).
SOURCES = ("tool", "user", "env")
MAX_OBSERVATION_CHARS = 200_000


def observation_space(budget: int, max_steps: int, exit_codes: int) -> spaces.Dict:
    """Return the observation space every env shares.

    Args:
        budget: Questions per episode (``questions_left`` ranges over 0..budget).
        max_steps: Steps per episode.
        exit_codes: How many exit codes from -1 up (257 for shell commands, 1 when there are none).
    """
    return spaces.Dict(
        {
            "output": UnicodeText(MAX_OBSERVATION_CHARS + 1000),
            "source": spaces.Discrete(len(SOURCES)),
            "exit_code": spaces.Discrete(exit_codes, start=-1),
            "questions_left": spaces.Discrete(budget + 1),
            "step": spaces.Discrete(max_steps + 1),
        }
    )


def _register_vector_support() -> None:
    """Teach Gymnasium's vector utilities the text spaces (see the module docstring)."""
    for space_type in (UnicodeText, ActionSpace):
        vector_utils.batch_space.register(space_type, vector_spaces.batch_of)
    vector_utils.iterate.register(vector_spaces.SpaceBatch, vector_spaces.iterate_batch)
    vector_utils.create_empty_array.register(UnicodeText, vector_spaces.empty_texts)
    vector_utils.create_shared_memory.register(UnicodeText, vector_spaces.create_text_memory)
    # A live Sequence view, where Gymnasium's stubs name arrays, dicts and tuples (see SharedTexts).
    vector_utils.read_from_shared_memory.register(UnicodeText, cast(Any, vector_spaces.read_texts))
    vector_utils.write_to_shared_memory.register(UnicodeText, vector_spaces.write_text)


_register_vector_support()
