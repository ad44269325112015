"""From a profile to a live endpoint: the built-in offline server, or the server for the
profile's GGUF file, started where the app serves the model; the key (and a base URL's
password) found for any other."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from desktop.adapters.gguf_server import gguf_server
from desktop.adapters.keys import get_key, url_password
from desktop.adapters.local_server import LocalServer, local_server
from desktop.domain.base_urls import require_base_url, split_password
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import ModelProfile


@dataclass(frozen=True)
class Endpoint:
    base_url: str  # never with a password in it: that is ``password``
    api_key: str | None
    server: LocalServer | None = None  # the process behind it, where the app started it
    password: str | None = field(default=None, repr=False)  # the base URL's, as basic auth


def endpoint_for(profile: ModelProfile, *, logprobs: bool = True) -> Endpoint:
    """Where to send requests for a profile; starts the built-in local server on demand,
    able to give ``logprobs`` if they will be asked for."""
    if profile.served_here:
        server = model_server(profile)
        return Endpoint(server.ensure_started(logprobs=logprobs), None, server)
    if not profile.base_url:
        raise TiebreakError(f"profile {profile.name}: no base URL")
    require_base_url(profile.base_url, f"profile {profile.name}")  # a hand-edited file's too
    key, password = get_key(profile), url_password(profile)
    # Basic auth takes the Authorization header a key would: with a password, none is sent.
    if key is None and password is None and profile.needs_key:
        raise TiebreakError(
            f"profile {profile.name}: no API key; run 'tiebreak key set {profile.name}'"
            f" or set {profile.key_env}"
        )
    return Endpoint(split_password(profile.base_url)[0], key, password=password)


def model_server(profile: ModelProfile) -> LocalServer:
    """The server the app runs for a profile it serves (not started yet); a GGUF file is
    checked first, and refused in one line if it cannot run here."""
    if profile.gguf is None:
        return local_server()
    return gguf_server(
        Path(profile.gguf), profile.model, n_ctx=profile.n_ctx, threads=profile.n_threads
    )


def ad_hoc_profile(base_url: str, model: str) -> ModelProfile:
    """A profile for `--base-url URL --model NAME`: the key from OPENAI_API_KEY if set."""
    require_base_url(base_url, "--base-url")
    return ModelProfile(name="command-line", model=model, base_url=base_url, needs_key=False)
