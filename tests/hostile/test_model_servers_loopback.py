"""`tiebreak models` asks the servers on this machine's ports, and nothing beyond them.

Any local user can bind 11434, 1234 or 8080. A server there that answered with a redirect
was followed, to any URL, and the target's models were listed under the first URL. Each
case here redirects, with every redirecting status, to a second loopback server (which
counts what it is asked), to ``localhost`` and to a name outside the machine: no redirect
is followed, the target is never asked, and its models are not listed; the listing ends
as it would with nothing on the port.
"""

from __future__ import annotations

import contextlib
import functools
import json
from pathlib import Path

import pytest

from tests.gguf_files import write_gguf
from tests.hostile.conftest import Hostile
from tests.hostile.loopback import ports_env, send, serving

STOLEN = {"models": [{"name": "stolen:latest"}], "data": [{"id": "stolen-model"}]}


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_no_redirect_is_followed(tmp_path: Path, status: int, hostile: Hostile) -> None:
    models = tmp_path / "models"
    write_gguf(models / "good.gguf", name="Good Model")
    with contextlib.ExitStack() as stack:
        target, asked = stack.enter_context(serving(lambda h: send(h, json.dumps(STOLEN).encode())))
        ports = {}
        for kind, location in (
            ("ollama", f"http://127.0.0.1:{target}/api/tags"),
            ("lmstudio", f"http://localhost:{target}/v1/models"),
            ("llama_cpp", "http://models.example.invalid/v1/models"),
        ):
            redirect = functools.partial(send, body=b"", status=status, Location=location)
            ports[kind] = stack.enter_context(serving(redirect))[0]
        env = {**ports_env(**ports), "TIEBREAK_MODEL_PATH": str(models)}
        run = hostile.cli("models", env=env)
        as_json = hostile.cli("models", "--json", env=env)
    hostile.succeeded(run)
    hostile.succeeded(as_json)
    assert asked == [], f"the redirect's target was asked {asked}"
    assert "stolen" not in run.stdout and "stolen" not in as_json.stdout, run.stdout
    assert json.loads(as_json.stdout)["servers"] == []
    assert "Good Model" in run.stdout
