"""The text spaces under Gymnasium's vector utilities: shared-memory round trips, batched spaces, batch checks."""

from __future__ import annotations

import copy
import multiprocessing as mp
import pickle

import gymnasium
import numpy as np
import pytest
from gymnasium.vector.utils import (
    batch_space,
    concatenate,
    create_empty_array,
    create_shared_memory,
    iterate,
    read_from_shared_memory,
    write_to_shared_memory,
)

from icae_env.actions import Bash
from icae_env.errors import ArgumentError, ArgumentTypeError
from icae_env.spaces import ActionSpace, UnicodeText, observation_space
from icae_env.vector_spaces import BYTES_PER_CHAR, SharedTexts, SpaceBatch, TextMemory

MAX = 12
SPACE = UnicodeText(MAX)
TEXTS = (
    "",  # empty
    "ls -la\n",
    "é漢ß€→😀\t\r\n",  # non-ASCII, 2-, 3- and 4-byte UTF-8
    "x" * MAX,  # the maximum length, 1 byte a character
    "😀" * MAX,  # the maximum length, 4 bytes a character
    "\x00nul\x00",  # NUL bytes are text too
    "\ud800lone",  # a lone surrogate (what surrogateescape decoding leaves) round-trips as well
)


def _write_all(space: UnicodeText, texts: tuple[str, ...], memory: TextMemory) -> None:
    """Runs in a spawned process: what an AsyncVectorEnv worker does after each step."""
    for index, text in enumerate(texts):
        write_to_shared_memory(space, index, text, memory)


def _texts(memory: TextMemory, n: int = len(TEXTS)) -> SharedTexts:
    return read_from_shared_memory(SPACE, memory, n=n)


# -- shared memory round trips ------------------------------------------------------------------------------------


def test_texts_written_in_another_process_read_back_exactly():
    ctx = mp.get_context("spawn")
    memory = create_shared_memory(SPACE, n=len(TEXTS), ctx=ctx)
    assert isinstance(memory, TextMemory) and len(memory.data) == len(TEXTS) * MAX * BYTES_PER_CHAR
    texts = _texts(memory)
    assert tuple(texts) == ("",) * len(TEXTS), "a fresh buffer holds empty texts"
    worker = ctx.Process(target=_write_all, args=(SPACE, TEXTS, memory))
    worker.start()
    worker.join(60)
    assert worker.exitcode == 0
    assert tuple(texts) == TEXTS, "the view made before the writes shows them"
    assert [len(t) for t in texts] == [len(t) for t in TEXTS]


def test_copies_are_plain_tuples_of_str():
    memory = create_shared_memory(SPACE, n=len(TEXTS))
    _write_all(SPACE, TEXTS, memory)
    texts = _texts(memory)
    for copied in (copy.deepcopy(texts), copy.copy(texts), pickle.loads(pickle.dumps(texts))):
        assert type(copied) is tuple and copied == TEXTS
        assert all(type(t) is str for t in copied)
    held = copy.deepcopy(texts)
    write_to_shared_memory(SPACE, 0, "changed", memory)
    assert held[0] == "" and texts[0] == "changed", "a copy is a snapshot; the view is live"


def test_a_shorter_text_leaves_nothing_of_the_longer_one():
    memory = create_shared_memory(SPACE, n=2)
    write_to_shared_memory(SPACE, 1, "😀" * MAX, memory)
    write_to_shared_memory(SPACE, 1, "ab", memory)
    assert tuple(_texts(memory, 2)) == ("", "ab")
    write_to_shared_memory(SPACE, 1, "", memory)
    assert tuple(_texts(memory, 2)) == ("", "")


def test_a_text_over_max_length_raises_and_leaves_the_buffer_alone():
    memory = create_shared_memory(SPACE, n=2)
    write_to_shared_memory(SPACE, 0, "kept", memory)
    with pytest.raises(
        ArgumentError, match=r"UnicodeText\(max_length=12\) text has at most 12 characters; env 0 gave 13"
    ):
        write_to_shared_memory(SPACE, 0, "x" * (MAX + 1), memory)
    with pytest.raises(ArgumentTypeError, match=r"holds str, got bytes \(env 1\)"):
        write_to_shared_memory(SPACE, 1, b"bytes", memory)
    assert tuple(_texts(memory, 2)) == ("kept", "")


def test_reading_with_the_wrong_number_of_envs_raises():
    with pytest.raises(ArgumentError, match="holds 2 texts, not 3"):
        read_from_shared_memory(SPACE, create_shared_memory(SPACE, n=2), n=3)


def test_the_observation_dict_round_trips_through_gymnasium_dispatch():
    space = observation_space(budget=3, max_steps=5, exit_codes=257)
    observations = [
        {"output": "", "source": 2, "exit_code": -1, "questions_left": 3, "step": 0},
        {"output": "Ünïcödé ✓\n" * 100, "source": 0, "exit_code": 255, "questions_left": 0, "step": 5},
    ]
    memory = create_shared_memory(space, n=2)
    batch = read_from_shared_memory(space, memory, n=2)
    for index, observation in enumerate(observations):
        write_to_shared_memory(space, index, observation, memory)
    copied = copy.deepcopy(batch)
    expected = concatenate(space, observations, create_empty_array(space, n=2))
    assert copied.keys() == expected.keys()
    assert copied["output"] == expected["output"] == tuple(o["output"] for o in observations)
    assert type(copied["output"]) is tuple
    for key in ("source", "exit_code", "questions_left", "step"):
        assert np.array_equal(copied[key], expected[key]) and copied[key].dtype == expected[key].dtype
    assert copied in batch_space(space, 2) and batch in batch_space(space, 2)


def test_shared_texts_behave_as_a_sequence():
    memory = create_shared_memory(SPACE, n=3)
    _write_all(SPACE, ("a", "é", "c"), memory)
    texts = _texts(memory, 3)
    assert (len(texts), texts[-1], texts[np.int64(1)], texts[1:]) == (3, "c", "é", ("é", "c"))
    assert texts == ("a", "é", "c") and texts == ["a", "é", "c"] and texts != ("a",)
    assert list(texts) == ["a", "é", "c"] and "é" in texts and texts.index("c") == 2
    assert repr(texts) == "SharedTexts(('a', 'é', 'c'))"
    with pytest.raises(IndexError, match="text index 3 out of range for 3 texts"):
        texts[3]
    with pytest.raises(TypeError, match="unhashable"):
        hash(texts)


# -- batched spaces and batches -----------------------------------------------------------------------------------


@pytest.mark.parametrize("space", [UnicodeText(40), ActionSpace()], ids=["UnicodeText", "ActionSpace"])
def test_batch_space_is_n_seeded_copies(space):
    space.seed(7)
    batched = batch_space(space, 3)
    assert isinstance(batched, SpaceBatch) and isinstance(batched, gymnasium.spaces.Tuple)
    assert batched.spaces == (space,) * 3 and all(s is not space for s in batched.spaces)
    assert repr(batched) == f"SpaceBatch({space!r}, n=3)"
    sample = batched.sample()
    assert type(sample) is tuple and len(sample) == 3 and sample in batched
    assert list(sample) in batched and sample[:2] not in batched
    space.seed(7)
    assert batch_space(space, 3).sample() == sample, "the copies' seeds come from the space's generator"


def test_a_text_batch_contains_sequences_of_n_texts_only():
    batched = batch_space(SPACE, 2)
    assert ("", "x" * MAX) in batched and ["a", "b"] in batched and np.array(["a", "b"]) in batched
    assert "ab" not in batched, "a str is one text, not a batch"
    assert ("a", "x" * (MAX + 1)) not in batched and ("a", 3) not in batched
    assert np.array([["a", "b"]]) not in batched


BASH = {"tool": "bash", "command": "echo hi"}


@pytest.mark.parametrize(
    "actions",
    [[BASH, BASH], (BASH, '{"tool": "submit"}'), np.array([BASH, Bash(command="ls")], dtype=object)],
    ids=["list", "tuple-with-json", "array-with-model"],
)
def test_iterate_gives_one_action_per_env(actions):
    assert list(iterate(batch_space(ActionSpace(), 2), actions)) == list(actions)


@pytest.mark.parametrize(
    ("actions", "got"),
    [(BASH, "a dict"), ('{"tool": "submit"}', "str"), (Bash(command="ls"), "Bash"), (None, "NoneType")],
    ids=["dict", "str", "model", "none"],
)
def test_iterate_refuses_a_lone_action(actions, got):
    with pytest.raises(ArgumentTypeError, match=rf"is a list or tuple of 2 items, one per env .*; got {got}$"):
        iterate(batch_space(ActionSpace(), 2), actions)


def test_iterate_refuses_a_batch_of_the_wrong_length():
    with pytest.raises(ArgumentError, match=r"holds one item per env \(2\); got 3"):
        iterate(batch_space(SPACE, 2), ["a", "b", "c"])


def test_empty_array_of_texts():
    assert create_empty_array(SPACE, n=3) == ("", "", "")
