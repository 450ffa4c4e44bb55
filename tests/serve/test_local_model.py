"""The local model server: SmolLM2 answers on loopback, and no server outlives its owner."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import urllib.request

import pytest
from local_model import needs_local_model

from icae_env.errors import DependencyNotInstalled, IcaeEnvError
from icae_env.local_weights import GGUF_VARIABLE, smollm2_path
from icae_env.serve.local_model import LocalModelServer


def _chat(base_url: str, payload: dict) -> dict:
    request = urllib.request.Request(
        base_url + "/chat/completions", json.dumps(payload).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=300) as response:
        return json.loads(response.read())


def test_bad_settings_are_typed_errors():
    with pytest.raises(IcaeEnvError, match="context_length"):
        LocalModelServer(context_length=10)


@needs_local_model
def test_the_gguf_file_comes_from_the_installed_package():
    path = smollm2_path()
    assert path.name.endswith(".gguf") and path.stat().st_size > 50_000_000


@needs_local_model
def test_smollm2_answers_a_multi_token_prompt(local_model):
    """A prompt longer than one token (the case that crashes llama.cpp on AMX CPUs with extra buffer types on)."""
    reply = _chat(local_model.base_url, {
        "model": local_model.model, "max_tokens": 16, "temperature": 0,
        "messages": [{"role": "user", "content": "Name one colour of the rainbow, in one word."}],
    })  # fmt: skip
    message = reply["choices"][0]["message"]
    assert message["role"] == "assistant" and message["content"].strip()
    assert reply["usage"]["prompt_tokens"] > 1


@needs_local_model
def test_a_killed_owner_leaves_no_server(tmp_path):
    """The owner is SIGKILLed while its server runs: the server process goes too."""
    script = textwrap.dedent("""
        import os, sys, time
        from icae_env.serve.local_model import LocalModelServer
        server = LocalModelServer().start()
        print(server._process.pid, flush=True)
        time.sleep(600)
    """)
    owner = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    child = int(owner.stdout.readline())
    os.kill(owner.pid, signal.SIGKILL)
    owner.wait()
    for _ in range(100):
        try:
            os.kill(child, 0)
        except ProcessLookupError:
            break
        time.sleep(0.1)
    else:
        os.kill(child, signal.SIGKILL)
        pytest.fail("the model server outlived its owner")


def test_missing_package_names_the_extra(monkeypatch):
    import importlib.util

    monkeypatch.delenv(GGUF_VARIABLE, raising=False)
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None)
    with pytest.raises(DependencyNotInstalled, match=r"icae-env\[local-model\]"):
        smollm2_path()
