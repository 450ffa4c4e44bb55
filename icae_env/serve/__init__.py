"""Serving icae-env environments to other frameworks; today OpenEnv (``pip install "icae-env[openenv]"``).

``icae-env serve openenv --env icae/ProjectBuild-v0`` serves any registered env id over HTTP and WebSocket;
:class:`OpenEnvClient` drives one WebSocket session (its own env and sandbox) with ``reset`` / ``step`` /
``state`` / ``close``:

.. code-block:: python

    from icae_env.serve import IcaeAction, OpenEnvClient

    with OpenEnvClient("http://127.0.0.1:8000") as client:
        result = client.reset(seed=0, task="builtin/unidiff")
        result = client.step(IcaeAction(tool="bash", command="ls"))   # or a dict, or text
        print(result.observation.output, result.reward, result.done)

Names are imported on first use, so ``import icae_env.serve`` works without the extra; using one of them
without it raises :class:`~icae_env.errors.DependencyNotInstalled` naming the extra.
"""

from __future__ import annotations

from icae_env.registration import lazy_getattr

__all__ = ["IcaeAction", "IcaeObservation", "IcaeOpenEnv", "IcaeState", "OpenEnvClient", "create_openenv_app"]

_HOMES = {
    "IcaeAction": "icae_env.serve.models",
    "IcaeObservation": "icae_env.serve.models",
    "IcaeState": "icae_env.serve.models",
    "IcaeOpenEnv": "icae_env.serve.environment",
    "create_openenv_app": "icae_env.serve.openenv",
    "OpenEnvClient": "icae_env.serve.client",
}

__getattr__ = lazy_getattr(__name__, _HOMES)
