"""The numpy cross-encoder: tokenizer and forward pass against transformers, weights files, the fit's command."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tiny_cross_encoder import hf_tokenizer, needs_transformers, tiny_model, write_tiny

from benchmarks.router_fit.labels import load_labels
from icae_env.errors import ConfigError, ModelWeightsMissing, TaskValidationError
from icae_env.tasks import list_tasks, load_task
from icae_env.user_agent import documents_for
from icae_env.user_agent.models.cross_encoder import (
    PATH_VARIABLE,
    SHIPPED_PATH,
    THREADS_VARIABLE,
    CrossEncoder,
    blas_threads,
    cross_encoder_path,
    default_cross_encoder,
    record_text,
)
from icae_env.user_agent.models.logit_store import CACHE_VARIABLE
from icae_env.user_agent.models.wordpiece import WordPiece

ROOT = Path(__file__).resolve().parents[2]
ODD = [
    "Naïve café résumé: what's the DEFAULT time-out (in ms)?",
    "日本語のテスト and 中文 mixed with ASCII",
    "tabs\tand\nnewlines\r and \x00 nulls \ufffd and control \x07 chars",
    "emoji 🚀 and math ∑ x² ≤ 3 and quotes “like” ‘these’",
    "a" * 150 + " pneumonoultramicroscopicsilicovolcanoconiosis x_y.z/w\\v",
    "ΣΑΣ and İstanbul, ﬁne ligatures, \u2028 and \u00a0 spaces, \u200b zero width, ｆｕｌｌ width, カタカナ, ไทย, 𫠠x",
    "",
    " ".join(f"word{n}" for n in range(40)) + " and a long question that the record makes room for?",
]


def _records() -> list[str]:
    texts = []
    for name in list_tasks()[:4]:
        texts += [record_text(d) for d in documents_for(load_task(name).user_agent_data("L1"))]
    return texts


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> CrossEncoder:
    return CrossEncoder.load(write_tiny(tmp_path_factory.mktemp("ce") / "tiny.npz"))


@needs_transformers
def test_the_tokenizer_gives_berts_ids(tiny):
    tokenizer = hf_tokenizer()
    questions = [q.question for q in load_labels(ROOT / "benchmarks/data/router_eval_builtin.jsonl")][::5] + ODD
    records = _records()
    for n, question in enumerate(questions):
        record = records[n % len(records)]
        expected = tokenizer(question, record, truncation="only_second", max_length=128)
        ids, types, mask = tiny.inputs(question, [record])
        assert ids[0].tolist() == expected["input_ids"], question
        assert types[0].tolist() == expected["token_type_ids"], question
        assert mask.all()
    assert 62 < len(tiny.tokenizer.encode(ODD[-1])) < 125  # longer than half the input, shorter than all of it
    ids, types, _ = tiny.inputs(" ".join(f"token{n}" for n in range(90)), records[:2])  # longer than the input
    assert ids.shape == (2, 128) and ids[0, -1] == tiny.tokenizer.sep and types[0, -2:].tolist() == [1, 1]
    assert WordPiece(["[UNK]", "[CLS]", "[SEP]", "un", "##able"]).encode("Unable unknown") == [3, 4, 0]


@needs_transformers
def test_the_forward_pass_is_berts_on_the_same_weights(tiny, tmp_path):
    """The exported (int8) weights, dequantised into transformers' BERT, give the numpy pass's logits."""
    import torch

    model, _ = tiny_model()
    with np.load(write_tiny(tmp_path / "again.npz")) as data:
        fields = {name: data[name] for name in data.files}
    state = {}
    for name in model.state_dict():
        key = name.removeprefix("bert.")
        key = key if key.startswith("embeddings.word_") else "m0." + key  # the word embeddings are shared
        if key + ".q" in fields:
            state[name] = torch.from_numpy(fields[key + ".q"].astype(np.float32) * fields[key + ".scale"][:, None])
        elif key in fields:
            state[name] = torch.from_numpy(np.ascontiguousarray(fields[key]))
    assert set(model.state_dict()) - set(state) <= {"bert.embeddings.position_ids"}
    model.load_state_dict(state, strict=False)
    tokenizer = hf_tokenizer()
    records = _records()[:5]
    for question in ("what is the default timeout?", "how are cycles reported", ODD[0]):
        encoded = tokenizer([question] * len(records), records, truncation="only_second", max_length=128,
                            padding=True, return_tensors="pt")  # fmt: skip
        with torch.no_grad():
            expected = model(**encoded).logits.squeeze(-1).numpy()
        got = tiny.logits(question, records)
        assert np.abs(expected).max() > 0.05  # not a trivially flat model
        assert np.allclose(got, expected, atol=2e-3), (question, got, expected)


@needs_transformers
def test_a_logit_depends_on_its_pair_only(tmp_path, monkeypatch):
    """The same pair gives the same logit, bit for bit, alone or with others, first asked or remembered."""
    monkeypatch.setenv(CACHE_VARIABLE, "")  # computed each time, not read from the disk store
    records, question = _records()[:4], "what does it print on an empty input?"
    path = write_tiny(tmp_path / "tiny.npz")
    together = CrossEncoder.load(path).logits(question, records)
    fresh = CrossEncoder.load(path)
    alone = [fresh.logits(question, [r])[0] for r in reversed(records)][::-1]
    assert np.array_equal(together, alone)
    assert np.array_equal(together, fresh.logits(question, records))  # remembered
    assert len(fresh._logits) == 4 and fresh.store is None
    assert fresh.logits("anything", []).shape == (0,)


@needs_transformers
def test_an_ensemble_gives_its_models_mean_logit(tmp_path):
    """A file of three models: each model's logit (the shared word embeddings, its own layers), averaged."""
    path = write_tiny(tmp_path / "three.npz", seed=3, models=3)
    with np.load(path) as data:
        fields = {name: data[name] for name in data.files}
    records, question = _records()[:3], "how are cycles reported"
    ensemble = CrossEncoder.load(path)
    assert len(ensemble.members) == 3
    singles = []
    for k in range(3):
        own = {
            n.replace(f"m{k}.", "m0.", 1): a
            for n, a in fields.items()
            if not n.startswith("m") or n.startswith(f"m{k}.")
        }
        own["config"] = np.array([*fields["config"][:3], 1])
        np.savez(tmp_path / f"m{k}.npz", **own)
        singles.append(CrossEncoder.load(tmp_path / f"m{k}.npz").logits(question, records))
    assert np.ptp(singles, axis=0).max() > 0.01  # the models differ...
    assert np.allclose(ensemble.logits(question, records), np.mean(singles, axis=0), atol=1e-6)  # ...and are averaged


def _variant(tmp_path: Path, name: str, change) -> Path:
    with np.load(write_tiny(tmp_path / "tiny.npz")) as data:
        fields = {key: data[key] for key in data.files}
    change(fields)
    out = tmp_path / f"{name}.npz"
    np.savez(out, **fields)
    return out


def _drop_layer(fields):
    for key in [k for k in fields if k.startswith("m0.encoder.layer.1.")]:
        del fields[key]


@needs_transformers
@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda f: f.pop("m0.encoder.layer.1.output.dense.bias"), "m0.encoder.layer.1.output.dense.bias"),
        (lambda f: f.update(config=np.array([4, 128, 2])), "config"),
        (lambda f: f.update(config=np.array([5, 128, 2, 1])), "config"),
        (lambda f: f.update(config=np.array([4, 128, 2, 2])), "config"),  # a second model announced, not there
        (_drop_layer, "config"),
        (lambda f: f.update({"m0.pooler.dense.weight.scale": np.ones(3, np.float32)}), "m0.pooler.dense.weight.scale"),
        (lambda f: f.update({"m0.encoder.layer.0.output.dense.bias": np.ones(7, np.float32)}), "output.dense.bias"),
        (lambda f: f.update(vocab=np.array("a\nb")), "vocab"),
        (lambda f: f.update({"m0.classifier.weight.q": np.ones((1, 64), np.float32)}), "m0.classifier.weight.q"),
        (lambda f: f.pop("embeddings.word_embeddings.weight.scale"), "embeddings.word_embeddings.weight.scale"),
    ],
)
def test_a_bad_weights_file_names_the_file_and_field(tmp_path, change, field):
    bad = _variant(tmp_path, "bad", change)
    with pytest.raises(TaskValidationError, match=f"bad.npz: .*{field}"):
        CrossEncoder.load(bad)


def test_an_unreadable_weights_file_is_named(tmp_path):
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"not a zip")
    with pytest.raises(TaskValidationError, match="broken.npz: -: not a readable"):
        CrossEncoder.load(broken)


def test_missing_weights_say_how_to_fit_them(tmp_path, monkeypatch):
    monkeypatch.setenv(PATH_VARIABLE, str(tmp_path / "none.npz"))
    assert cross_encoder_path() == tmp_path / "none.npz"
    with pytest.raises(ModelWeightsMissing, match=r"none.npz.*cross_encoder_fit.*icae-env\[embedding\]"):
        default_cross_encoder()
    monkeypatch.delenv(PATH_VARIABLE)
    assert cross_encoder_path() == SHIPPED_PATH and SHIPPED_PATH.is_file()


@needs_transformers
def test_the_fit_command_writes_weights_the_numpy_model_reads(tmp_path):
    """A quick fit (two folds, 32 pairs each, one epoch) through the module's command line, read back by numpy."""
    out = tmp_path / "fitted"  # no .npz: written to exactly this name
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "benchmarks.router_fit.cross_encoder_fit", "--limit", "32", "--epochs", "1",
               "--folds", "2"]  # fmt: skip
    result = subprocess.run([*command, "--out", str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert result.returncode == 0, result.stderr
    assert "model 2 of 2 fitted" in result.stdout
    model = CrossEncoder.load(out)
    assert len(model.members) == 2 and len(model.members[0].layers) == 6
    assert model.heads == 12 and model.max_length == 128
    assert np.isfinite(model.logits("what is the default timeout?", _records()[:3])).all()
    bad = subprocess.run([*command[:3], "--out", str(out), "--epochs", "0"], capture_output=True, text=True, env=env,
                         timeout=120)  # fmt: skip
    assert bad.returncode == 2 and "--epochs >= 1" in bad.stderr


@needs_transformers
def test_export_refuses_what_is_not_one_ensemble(tmp_path):
    from tiny_cross_encoder import tiny_model
    from transformers import BertConfig, BertForSequenceClassification

    from benchmarks.router_fit.cross_encoder_fit import export
    from icae_env.errors import ArgumentError

    model, vocabulary = tiny_model()
    with pytest.raises(ArgumentError, match="at least one model"):
        export([], vocabulary, 128, tmp_path / "none.npz")
    config = BertConfig(**{**model.config.to_dict(), "num_hidden_layers": model.config.num_hidden_layers + 1})
    with pytest.raises(ArgumentError, match=r"differ in \(heads, layers, width\)"):
        export([model, BertForSequenceClassification(config)], vocabulary, 128, tmp_path / "two.npz")
    with pytest.raises(ArgumentError, match="not 0..n-1"):
        export([model], {**vocabulary, "[EXTRA]": len(vocabulary) + 5}, 128, tmp_path / "gap.npz")
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize(
    ("argv", "message"),
    [(["--out", "x.npz", "--folds", "0"], "--folds >= 1"), (["--out", "x.npz", "--limit", "-1"], "--limit >= 0"),
     ([], "the following arguments are required: --out")],
)  # fmt: skip
def test_the_fit_command_refuses_bad_arguments_before_fitting(argv, message, capsys):
    from benchmarks.router_fit.cross_encoder_fit import main

    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def _child_threads(queue: Any) -> None:
    """In a worker process: the limit, and BLAS's threads inside a forward pass's limit."""
    from threadpoolctl import threadpool_info

    from icae_env.user_agent.models.cross_encoder import _blas_limit

    with _blas_limit():
        inside = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
    queue.put((blas_threads(), inside))


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_worker_processes_run_blas_on_one_thread(method: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    assert blas_threads() is None  # the main process keeps BLAS's own threads
    context = multiprocessing.get_context(method)
    queue = context.Queue()
    process = context.Process(target=_child_threads, args=(queue,))
    process.start()
    limit, inside = queue.get(timeout=120)
    process.join(timeout=60)
    assert limit == 1
    assert inside and set(inside) == {1}


def test_blas_threads_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(THREADS_VARIABLE, "3")
    assert blas_threads() == 3
    for bad in ("0", "-1", "two", "1.5"):
        monkeypatch.setenv(THREADS_VARIABLE, bad)
        with pytest.raises(ConfigError, match=THREADS_VARIABLE):
            blas_threads()


def test_logits_do_not_depend_on_the_thread_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    encoder = CrossEncoder.load(SHIPPED_PATH)
    encoder.store = None
    records = ["Requests beyond a burst are refused with a retry time.", "The output is one line per key."]
    monkeypatch.delenv(THREADS_VARIABLE, raising=False)
    free = encoder.logits("what if the burst is exceeded?", records)
    encoder._logits.clear()
    monkeypatch.setenv(THREADS_VARIABLE, "1")
    limited = encoder.logits("what if the burst is exceeded?", records)
    # equal to float32 rounding: whether they are bit-identical depends on the CPU's BLAS kernels (they were where
    # this was written; on a later machine the last bit of one logit differed, -1.74948883 against -1.74948877)
    np.testing.assert_allclose(free, limited, rtol=1e-6, atol=1e-6)
    assert not np.allclose(free, encoder.logits("what if the output is two lines?", records), atol=1e-3)


@pytest.mark.parametrize("threads", ["1", "2"])
def test_pairs_run_together_give_the_bits_each_gives_alone(threads: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pairs of one length run stacked, on threads, with the last layer cut to [CLS]: each logit is its pair's own."""
    monkeypatch.setenv(THREADS_VARIABLE, threads)
    encoder = CrossEncoder.load(SHIPPED_PATH)
    encoder.store = None
    records, question = _records()[:6] + ["Blank rows are skipped.", "Rows are counted."], "what if a row is blank?"
    lengths = encoder.inputs(question, records)[2].sum(1)
    assert 1 < len(set(lengths.tolist())) < len(records)  # some pairs of one length, some of others
    together = encoder.logits(question, records)
    alone = []
    for record in reversed(records):
        encoder._logits.clear()
        alone.insert(0, encoder.logits(question, [record])[0])
    assert np.array_equal(together, alone)
    # the last layer in full gives the [CLS] row the cut one gives
    member, (ids, types, _) = encoder.members[0], encoder.inputs(question, records[-1:])
    words = encoder._word_q[ids].astype(np.float32) * encoder._word_scale[ids][..., None]
    flat = words[0] + member.position[: ids.shape[1]] + member.type[types[0]]
    from icae_env.user_agent.models.cross_encoder import _layer_norm

    flat = _layer_norm(flat, *member.norm)
    for layer in member.layers[:-1]:
        flat = encoder._layer(flat, 1, ids.shape[1], layer)
    full = encoder._layer(flat, 1, ids.shape[1], member.layers[-1])
    assert np.array_equal(full[:2], encoder._layer(flat, 1, ids.shape[1], member.layers[-1], keep=2)[0])
