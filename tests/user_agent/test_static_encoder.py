"""The static encoder: the shipped weights, its vectors, its file format and the fit that makes it."""

from __future__ import annotations

import importlib.util
import pickle

import numpy as np
import pytest

from benchmarks.router_fit.encoder_distill import _manual_text, fit_encoder, sentences
from icae_env.errors import ArgumentError, TaskValidationError
from icae_env.user_agent.models.static_encoder import StaticEncoder, default_encoder, encoder_features


def test_the_shipped_encoder_gives_unit_vectors_deterministically():
    encoder = default_encoder()
    vector = encoder.encode("What is the default timeout of a request?")
    assert vector.shape == (encoder.dimension,) and np.linalg.norm(vector) == pytest.approx(1.0)
    fresh = StaticEncoder(encoder.vocabulary, encoder.vectors, encoder.projection)  # no cache shared
    assert np.array_equal(fresh.encode("What is the default timeout of a request?"), vector)
    assert not np.any(encoder.encode("zzqx qqzv")) and not np.any(encoder.encode(""))


@pytest.mark.parametrize(
    ("question", "near", "far"),
    [
        ("what is the default timeout", "how long do we wait before giving up by default", "which cake should I bake"),
        ("how are duplicate keys handled", "what if the same key appears twice", "what colour is the logo"),
        ("in what order are results sorted", "should the listing be ascending or descending", "who pays for lunch"),
    ],
)
def test_a_paraphrase_is_nearer_than_another_subject(question, near, far):
    encoder = default_encoder()
    q = encoder.encode(question)
    assert q @ encoder.encode(near) > q @ encoder.encode(far) + 0.1


def test_features_are_tokens_then_stem_bigrams():
    assert encoder_features("Sorted output lines") == ["sort", "output", "line", "~sort", "~output", "~newline",
                                                       "sort_output", "output_line"]  # fmt: skip


def test_save_and_load_round_trip_within_the_quantisation_step(tmp_path):
    rng = np.random.default_rng(0)
    encoder = StaticEncoder(["alpha", "beta", "alpha_beta"], rng.normal(size=(3, 8)), rng.normal(size=(8, 5)))
    encoder.save(tmp_path / "enc.npz")
    loaded = StaticEncoder.load(tmp_path / "enc.npz")
    assert loaded.vocabulary == encoder.vocabulary
    step = np.abs(encoder.vectors).max(axis=1, keepdims=True) / 127
    assert np.all(np.abs(loaded.vectors - encoder.vectors) <= step / 2 + 1e-7)
    assert loaded.encode("alpha beta") @ encoder.encode("alpha beta") > 0.999


def _fields(**changes):
    fields = {"vocabulary": np.array("a\nb"), "vectors": np.zeros((2, 3), np.int8), "scale": np.ones(2, np.float32),
              "projection": np.eye(3, dtype=np.float32)}  # fmt: skip
    fields.update(changes)
    return {k: v for k, v in fields.items() if v is not None}


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        (_fields(vocabulary=None), "vocabulary"),
        (_fields(vocabulary=np.arange(2)), "vocabulary"),
        (_fields(vocabulary=np.array("a")), "vocabulary"),
        (_fields(vectors=np.zeros((2, 3))), "vectors"),
        (_fields(scale=np.ones(3)), "scale"),
        (_fields(scale=np.array([1.0, np.nan])), "scale"),
        (_fields(projection=np.eye(4)), "projection"),
        (_fields(projection=np.full((3, 3), np.inf)), "projection"),
    ],
)
def test_a_corrupt_encoder_file_names_the_file_and_field(tmp_path, fields, field):
    path = tmp_path / "bad.npz"
    np.savez(path, **fields)
    with pytest.raises(TaskValidationError) as error:
        StaticEncoder.load(path)
    assert error.value.file == str(path) and error.value.field == field


def test_an_unreadable_encoder_file_is_a_typed_error(tmp_path):
    good = tmp_path / "good.npz"
    np.savez(good, **_fields())
    assert StaticEncoder.load(good).vocabulary == ("a", "b")
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(good.read_bytes()[:-40])
    array = tmp_path / "array.npz"
    with open(array, "wb") as handle:
        np.save(handle, np.zeros(3))
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"not a zip file at all")
    for path in (truncated, array, garbage, tmp_path / "missing.npz"):
        with pytest.raises(TaskValidationError, match=path.name) as error:
            StaticEncoder.load(path)
        assert error.value.field == "-"


def test_shapes_that_disagree_are_refused():
    with pytest.raises(ArgumentError, match="shapes disagree"):
        StaticEncoder(["a", "b"], np.zeros((3, 4)), np.zeros((4, 2)))


def test_an_encoder_pickles_without_its_cache():
    rng = np.random.default_rng(0)
    encoder = StaticEncoder(["alpha", "beta"], rng.normal(size=(2, 4)), rng.normal(size=(4, 3)))
    vector = encoder.encode("alpha")
    again = pickle.loads(pickle.dumps(encoder))
    assert np.array_equal(again.encode("alpha"), vector) and again.vocabulary == encoder.vocabulary


def test_corpus_helpers_keep_sentences_and_strip_manual_markup():
    text = "Short. This sentence has enough words to keep.\n\n1234 5678 9012 3456 7890"
    assert list(sentences(text)) == ["This sentence has enough words to keep."]
    raw = '.TH LS 1\n.SH DESCRIPTION\nList \\fBinformation\\fR about the FILEs.\n.B "\\-a"\ndo not ignore entries'
    assert "List information about the FILEs." in _manual_text(raw) and "\\f" not in _manual_text(raw)


@pytest.mark.skipif(not importlib.util.find_spec("torch"), reason='needs pip install "icae-env[embedding]"')
def test_fit_encoder_learns_a_teacher_it_can_represent():
    """A teacher that is itself a bag of words is matched closely on held-out sentences."""
    rng = np.random.default_rng(1)
    words = [f"word{chr(97 + i)}{chr(97 + j)}" for i in range(6) for j in range(6)]
    truth = {w: rng.normal(size=16) for w in words}
    texts = [" ".join(rng.choice(words, size=5)) for _ in range(3000)]
    targets = np.stack([sum(truth[w] for w in t.split()) for t in texts])
    targets /= np.linalg.norm(targets, axis=1, keepdims=True)
    encoder = fit_encoder(texts, targets.astype(np.float32), rank=16, min_count=1, min_bigram_count=10**9, epochs=6)
    held = [" ".join(rng.choice(words, size=5)) for _ in range(50)]
    cosines = [encoder.encode(t) @ (v := sum(truth[w] for w in t.split())) / np.linalg.norm(v) for t in held]
    assert np.mean(cosines) > 0.95
