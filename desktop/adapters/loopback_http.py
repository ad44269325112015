"""One GET to a server on this machine: how ``tiebreak models`` asks the model servers on
their loopback ports, and how the built-in server is asked whether it is up.

Any local user can bind 11434, 1234 or 8080, so what answers there is not trusted:
- Only 127.0.0.1 is contacted, never through a proxy named in the environment.
- No redirect is followed (``http.client`` follows none): a 3xx is a reply like a 404,
  not a model list, so nothing beyond the port asked is ever contacted.
- The whole exchange (connecting, sending, the status line and headers, the body) ends
  at one deadline. A socket timeout alone bounds each read, and a server that drips its
  reply a byte at a time would hold the caller for good; here every read is given only
  what is left of the time.
- At most ``limit`` bytes of the body are read.
"""

from __future__ import annotations

import http.client
import io
import socket
import time
from dataclasses import dataclass

HOST = "127.0.0.1"


class LoopbackError(OSError):
    """No reply within the deadline, or none that HTTP can read."""


@dataclass(frozen=True)
class Reply:
    status: int
    body: bytes  # at most the limit asked for, plus one byte to tell it was passed


class _DeadlineReader(io.RawIOBase):
    """A socket's reads, each one waiting only for what is left before the deadline."""

    def __init__(self, owner: _DeadlineSocket) -> None:
        self.owner = owner

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        sock = self.owner.sock
        sock.settimeout(_left(self.owner.deadline))
        return sock.recv_into(buffer)

    def close(self) -> None:
        if not self.closed:
            self.owner.reader_closed()
        super().close()


class _DeadlineSocket:
    """What ``http.client`` uses of a socket, with the deadline on every wait. As with a
    real socket's ``makefile``, closing the connection leaves the socket open while the
    response still reads from it (``http.client`` closes a connection that will not be
    reused as soon as the response's headers are read)."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self.sock, self.deadline = sock, deadline
        self.readers, self.closing = 0, False

    def sendall(self, data: bytes) -> None:
        self.sock.settimeout(_left(self.deadline))  # bounds the whole of sendall
        self.sock.sendall(data)

    def makefile(self, mode: str) -> io.BufferedReader:
        assert mode == "rb", mode
        self.readers += 1
        return io.BufferedReader(_DeadlineReader(self))

    def reader_closed(self) -> None:
        self.readers -= 1
        if self.closing and self.readers == 0:
            self.sock.close()

    def close(self) -> None:
        self.closing = True
        if self.readers == 0:
            self.sock.close()


class _Connection(http.client.HTTPConnection):
    def __init__(self, port: int, deadline: float) -> None:
        super().__init__(HOST, port)
        self.deadline = deadline

    def connect(self) -> None:
        sock = socket.create_connection((HOST, self.port), timeout=_left(self.deadline))
        self.sock = _DeadlineSocket(sock, self.deadline)


def _left(deadline: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise LoopbackError("no whole reply in time")
    return left


def get(port: int, path: str, *, seconds: float, limit: int) -> Reply:
    """``GET path`` from 127.0.0.1:``port``, all of it within ``seconds``; LoopbackError
    (an OSError) where nothing answers, the reply is not HTTP, or it takes longer."""
    deadline = time.monotonic() + seconds
    connection = _Connection(port, deadline)
    try:
        connection.request("GET", path, headers={"Accept": "application/json"})
        with connection.getresponse() as response:
            return Reply(response.status, response.read(limit + 1))
    except (OSError, http.client.HTTPException) as exc:
        if isinstance(exc, LoopbackError):
            raise
        raise LoopbackError(f"127.0.0.1:{port}: {exc}") from None
    finally:
        connection.close()
