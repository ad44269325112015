"""The keys a key-echo test plants and a test server that echoes the key it was sent."""

from __future__ import annotations

from typing import Any

from tests.openai_server import OpenAIServer, Reply

IN_USE = "sk-in-use-4f7d2c91b0e84a3f"
OTHER = "sk-other-profile-9a8b7c6d5e"  # the keyring's, for another profile
SESSION = "sk-session-only-1122334455"  # held for this session, for a third
ENV_KEY = "sk-env-of-a-fourth-profile-77"  # a fourth profile's environment variable
ALL = (IN_USE, OTHER, SESSION, ENV_KEY)


def echo(server: OpenAIServer, status: int, others: tuple[str, ...] = ALL[1:]) -> Any:
    """A responder that answers with the key the request carried, and ``others``: in an
    error of ``status``, or in the completion itself for 200."""

    def reply(_: dict[str, Any]) -> Reply | str:
        sent = server.last_request.headers["authorization"].removeprefix("Bearer ")
        text = f"Incorrect API key provided: {sent}; known: {' '.join(others)}"
        return f"A {text}" if status == 200 else Reply.error(status, text)

    return reply
