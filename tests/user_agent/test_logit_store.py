"""Cross-encoder logits remembered on disk: shared across instances and processes, never changing a result."""

from __future__ import annotations

import multiprocessing
import pickle
import sqlite3

import numpy as np
import pytest
from tiny_cross_encoder import needs_transformers, write_tiny

from icae_env.tasks import list_tasks, load_task
from icae_env.user_agent import documents_for
from icae_env.user_agent.models.cross_encoder import CrossEncoder, record_text
from icae_env.user_agent.models.logit_store import CACHE_VARIABLE, FORMAT, LogitStore, cache_dir, file_digest, pair_key

QUESTION = "what does it print on an empty input?"


def _records(n: int = 4) -> list[str]:
    return [record_text(d) for d in documents_for(load_task(list_tasks()[0]).user_agent_data("L1"))][:n]


def test_a_store_keeps_logits_by_pair(tmp_path):
    store = LogitStore(tmp_path / "deep" / "s.sqlite")
    assert store.get("q", ["a", "b"]) == {} and store.get("q", []) == {} and len(store) == 0
    store.put("many", {f"r{n}": float(n) for n in range(1200)})  # more than one query's parameters
    assert store.get("many", [f"r{n}" for n in range(1201)]) == {f"r{n}": float(n) for n in range(1200)}
    store.put("q", {"a": 1.25, "b": -0.5})
    store.put("q", {"a": 1.25})  # again: no duplicate
    assert store.get("q", ["a", "b", "c"]) == {"a": 1.25, "b": -0.5}
    assert store.get("q2", ["a"]) == {} and len(store) == 1202
    again = pickle.loads(pickle.dumps(store))  # pickles as its path, opens its own connection
    assert again.get("q", ["b"]) == {"b": -0.5} and again._connection is not store._connection
    assert pair_key("ab", "c") != pair_key("a", "bc") and len(pair_key("q", "a")) == 32


def test_the_cache_directory_follows_the_environment(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path))
    assert cache_dir() == tmp_path
    store = LogitStore.for_weights("ab" * 32)
    assert store is not None and store.path == tmp_path / "cross-encoder" / f"{'ab' * 16}-v{FORMAT}.sqlite"
    monkeypatch.setenv(CACHE_VARIABLE, "")
    assert cache_dir() is None and LogitStore.for_weights("ab" * 32) is None
    monkeypatch.delenv(CACHE_VARIABLE)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "icae-env"


@needs_transformers
def test_a_second_model_reads_the_logits_the_first_computed(tmp_path, monkeypatch):
    """Loaded again (as in another process), the same weights file computes nothing and returns the same bits."""
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    path = write_tiny(tmp_path / "tiny.npz")
    first = CrossEncoder.load(path)
    records = _records()
    computed = first.logits(QUESTION, records)
    assert first.store is not None and len(first.store) == len(records)
    assert first.store.path.name.startswith(file_digest(path)[:32])
    second = CrossEncoder.load(path)
    monkeypatch.setattr(CrossEncoder, "_forward", lambda *_: pytest.fail("computed again"))
    assert np.array_equal(second.logits(QUESTION, records), computed)
    assert np.array_equal(second.logits(QUESTION, records[::-1] + records[:1]), [*computed[::-1], computed[0]])
    other = CrossEncoder.load(write_tiny(tmp_path / "other.npz", seed=5))  # other weights, another store
    assert other.store is not None and other.store.path != first.store.path and len(other.store) == 0


def _child_reads(path: str, records: list[str], queue) -> None:
    queue.put(CrossEncoder.load(path).store.get(QUESTION, records))


@needs_transformers
def test_a_forked_process_reads_what_its_parent_stored(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    path = write_tiny(tmp_path / "tiny.npz")
    model = CrossEncoder.load(path)
    records = _records(3)
    computed = model.logits(QUESTION, records)
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child_reads, args=(str(path), records, queue))
    child.start()
    child.join(60)
    assert child.exitcode == 0
    assert queue.get(timeout=5) == dict(zip(records, computed.tolist(), strict=True))


@needs_transformers
def test_a_broken_store_is_turned_off_with_a_warning_and_changes_no_logit(tmp_path, monkeypatch):
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    path = write_tiny(tmp_path / "tiny.npz")
    records = _records(3)
    monkeypatch.setenv(CACHE_VARIABLE, "")
    expected = CrossEncoder.load(path).logits(QUESTION, records)
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path / "cache"))
    model = CrossEncoder.load(path)
    assert model.store is not None
    model.store.path.parent.mkdir(parents=True)
    model.store.path.write_bytes(b"this is not a SQLite database" * 100)
    with pytest.warns(UserWarning, match="turned off for this process"):
        got = model.logits(QUESTION, records)
    assert np.array_equal(got, expected) and not model.store.enabled
    blocked = LogitStore(tmp_path / "a-file" / "s.sqlite")  # its directory cannot be made
    (tmp_path / "a-file").write_text("x")
    with pytest.warns(UserWarning, match="a-file"):
        blocked.put("q", {"a": 1.0})
    assert blocked.get("q", ["a"]) == {}


def test_a_store_written_by_another_schema_is_refused_not_misread(tmp_path):
    path = tmp_path / "s.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE logits (question TEXT, record TEXT, logit REAL)")
    store = LogitStore(path)
    with pytest.warns(UserWarning, match="turned off"):
        assert store.get("q", ["a"]) == {}


def test_threads_share_a_store(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    store = LogitStore(tmp_path / "s.sqlite")

    def write(n: int) -> dict[str, float]:
        store.put(f"q{n % 3}", {f"r{n}": float(n)})
        return store.get(f"q{n % 3}", [f"r{n}"])

    with ThreadPoolExecutor(8) as pool:
        got = list(pool.map(write, range(64)))
    assert got == [{f"r{n}": float(n)} for n in range(64)] and store.enabled and len(store) == 64
