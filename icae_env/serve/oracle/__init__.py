"""``icae-env serve oracle``: the HTTP API of ICAE-Bench's reference Oracle (User Agent), over the grounded User Agent.

* :mod:`.server`: the three HTTP listeners (init, interaction, stats) and the command line.
* :mod:`.service`: the three endpoints as a transport-free service.
* :mod:`.protocol`: the wire protocol's constants, error strings and request checks; :mod:`.http_body` reads bodies.
* :mod:`.sessions`, :mod:`.store`, :mod:`.interaction_log`: the sessions in memory, where they persist, their logs.
* :mod:`.task_catalog`: the tasks a server answers about, with one shared router index per task and level.

The protocol is described in ``docs/icae-format.md``.
"""

from __future__ import annotations

from icae_env.serve.oracle.protocol import DEFAULT_PORTS, PUBLISHED_KEY
from icae_env.serve.oracle.server import OracleServer
from icae_env.serve.oracle.service import OracleService

__all__ = ["DEFAULT_PORTS", "PUBLISHED_KEY", "OracleServer", "OracleService"]
