"""One GET to a server on this machine: how ``tiebreak models`` asks the model servers on
their loopback ports, and how the built-in server is asked whether it is up.

Any local user can bind 11434, 1234 or 8080, so what answers there is not trusted:
- Only 127.0.0.1 is contacted, never through a proxy named in the environment.
- No redirect is followed (``http.client`` follows none): a 3xx is a reply like a 404,
  not a model list, so nothing beyond the port asked is ever contacted.
- Each wait is bounded by a timeout.
- At most ``limit`` bytes of the body are read.
"""

from __future__ import annotations

import http.client
from dataclasses import dataclass

HOST = "127.0.0.1"


class LoopbackError(OSError):
    """No reply within the deadline, or none that HTTP can read."""


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes  # at most the limit asked for, plus one byte to tell it was passed


def get(port: int, path: str, *, seconds: float, limit: int) -> Reply:
    """``GET path`` from 127.0.0.1:``port``; LoopbackError (an OSError) where nothing
    answers, the reply is not HTTP, or a wait takes longer than ``seconds``."""
    connection = http.client.HTTPConnection(HOST, port, timeout=seconds)
    try:
        connection.request("GET", path, headers={"Accept": "application/json"})
        response = connection.getresponse()
        return Reply(response.status, response.read(limit + 1))
    except (OSError, http.client.HTTPException) as exc:
        if isinstance(exc, LoopbackError):
            raise
        raise LoopbackError(f"127.0.0.1:{port}: {exc}") from None
    finally:
        connection.close()
