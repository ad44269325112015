"""The test server must fool the official ``openai`` client, or tests built on it prove nothing.

Each test drives the real client (sync or async, ``max_retries=0`` so a fault surfaces as the
exception the app will see) against :class:`tests.openai_server.OpenAIServer`, and checks both
sides: what the client parsed or raised, and what the server recorded.
"""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import openai
import pytest

from tests.openai_server import Fault, OpenAIServer, Reply, TokenLogprob, can_encode

try:  # the openai package's HTTP stack: httpx2 in openai 3.x, httpx before
    import httpx2 as httpx
except ImportError:  # pragma: no cover - depends on the installed openai major
    import httpx  # type: ignore[no-redef]

SERVER_SCRIPT = Path(__file__).with_name("openai_server.py")
USER = [{"role": "user", "content": "Which response is better?"}]


@pytest.fixture
def server() -> Iterator[OpenAIServer]:
    with OpenAIServer() as srv:
        yield srv


@pytest.fixture
def client(server: OpenAIServer) -> Iterator[openai.OpenAI]:
    with openai.OpenAI(base_url=server.base_url, api_key="sk-test", max_retries=0) as c:
        yield c


def chat(client: openai.OpenAI, **kwargs: Any) -> Any:
    return client.chat.completions.create(model="judge", messages=USER, **kwargs)


def raw_request(port: int, body: bytes, path: str = "/v1/chat/completions") -> socket.socket:
    """Send one request by hand, for checks where the client library would get in the way."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=5)
    head = (
        f"POST {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    sock.sendall(head.encode() + body)
    return sock


def read_head(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(1)
        if not chunk:
            break
        data += chunk
    return data


# ------------------------------------------------------------------ happy paths


def test_chat_scripted_answers_then_default(server: OpenAIServer, client: openai.OpenAI) -> None:
    server.script(["B", Reply(content='{"verdict": "tie"}', finish_reason="length")])
    first, second, third = chat(client), chat(client), chat(client)
    assert first.choices[0].message.content == "B"
    assert first.object == "chat.completion" and first.model == "judge"
    assert second.choices[0].message.content == '{"verdict": "tie"}'
    assert second.choices[0].finish_reason == "length"
    assert third.choices[0].message.content == "A"  # queue empty: the default responder
    assert third.usage is not None
    assert third.usage.total_tokens == third.usage.prompt_tokens + third.usage.completion_tokens
    assert server.pending == 0
    # One keep-alive connection carried all three requests.
    assert len({r.connection_id for r in server.requests}) == 1


def test_chat_logprobs_scripted_and_synthesised(
    server: OpenAIServer, client: openai.OpenAI
) -> None:
    server.script([Reply(content="B", top_logprobs={"A": -1.5, "B": -0.3, "tie": -4.0})])
    response = chat(client, logprobs=True, top_logprobs=2)
    (token,) = response.choices[0].logprobs.content
    assert (token.token, token.logprob, token.bytes) == ("B", -0.3, [66])
    assert [(t.token, t.logprob) for t in token.top_logprobs] == [("B", -0.3), ("A", -1.5)]

    response = chat(client, logprobs=True, top_logprobs=3)
    (token,) = response.choices[0].logprobs.content
    assert token.token == "A" and len(token.top_logprobs) == 3
    assert chat(client).choices[0].logprobs is None  # only when asked for


def test_completions_with_logprobs(server: OpenAIServer, client: openai.OpenAI) -> None:
    scripted = [
        TokenLogprob("Response", -0.1, (("Response", -0.1), ("Answer", -2.5))),
        TokenLogprob(" B", -0.2, ((" B", -0.2), (" A", -1.8))),
    ]
    server.script([Reply(content="Response B", logprobs=scripted)])
    response = client.completions.create(model="base", prompt="Verdict:", logprobs=2)
    choice = response.choices[0]
    assert response.object == "text_completion" and choice.text == "Response B"
    assert choice.logprobs is not None
    assert choice.logprobs.tokens == ["Response", " B"]
    assert choice.logprobs.token_logprobs == [-0.1, -0.2]
    assert choice.logprobs.top_logprobs == [
        {"Response": -0.1, "Answer": -2.5},
        {" B": -0.2, " A": -1.8},
    ]
    assert choice.logprobs.text_offset == [0, 8]
    assert server.last_request.json["prompt"] == "Verdict:"


def test_async_client_and_runtime_responder(server: OpenAIServer) -> None:
    async def responder(request: dict[str, Any]) -> str:
        await asyncio.sleep(0)
        return "echo: " + request["messages"][-1]["content"]

    async def scenario() -> tuple[str | None, str | None, str]:
        async with openai.AsyncOpenAI(
            base_url=server.base_url, api_key="sk-async", max_retries=0
        ) as aclient:
            server.responder = responder
            echoed = await aclient.chat.completions.create(model="m", messages=USER)
            server.responder = None
            default = await aclient.chat.completions.create(model="m", messages=USER)
            completion = await aclient.completions.create(model="m", prompt="p", logprobs=1)
            return (
                echoed.choices[0].message.content,
                default.choices[0].message.content,
                completion.choices[0].text,
            )

    assert asyncio.run(scenario()) == ("echo: Which response is better?", "A", "A")
    assert server.requests[0].headers["authorization"] == "Bearer sk-async"


def test_broken_responder_is_a_500_and_is_kept(server: OpenAIServer, client: openai.OpenAI) -> None:
    def responder(request: dict[str, Any]) -> str:
        raise KeyError("verdict")

    server.responder = responder
    with pytest.raises(openai.InternalServerError, match="KeyError"):
        chat(client)
    assert [type(e) for e in server.errors] == [KeyError]
    server.reset()
    assert chat(client).choices[0].message.content == "A"
    assert server.errors == [] and len(server.requests) == 1


def test_invalid_requests_get_openai_style_errors(
    server: OpenAIServer, client: openai.OpenAI
) -> None:
    with raw_request(server.port, b"{not json") as sock:
        assert read_head(sock).startswith(b"HTTP/1.1 400 ")
    with pytest.raises(openai.NotFoundError):
        client.post("/nowhere", body={}, cast_to=object)
    with pytest.raises(openai.BadRequestError, match="logprobs"):
        chat(client, top_logprobs=3)  # OpenAI insists on logprobs=True alongside
    with pytest.raises(openai.BadRequestError):
        client.completions.create(model="m", prompt="p", logprobs=6)
    assert server.last_request.json["logprobs"] == 6  # invalid requests are recorded too


def test_models_endpoint(client: openai.OpenAI) -> None:
    assert [m.id for m in client.models.list()] == ["test-model"]


# ------------------------------------------------------------------ HTTP errors


def test_rate_limit_carries_retry_after(server: OpenAIServer, client: openai.OpenAI) -> None:
    server.script([Reply.rate_limit(retry_after=7), Reply.rate_limit(insufficient_quota=True)])
    with pytest.raises(openai.RateLimitError) as caught:
        chat(client)
    assert caught.value.response.headers["retry-after"] == "7"
    assert caught.value.code == "rate_limit_exceeded"
    with pytest.raises(openai.RateLimitError) as caught:
        chat(client)
    assert caught.value.code == "insufficient_quota"
    assert caught.value.type == "insufficient_quota"


@pytest.mark.parametrize(
    ("status", "exception"),
    [
        (400, openai.BadRequestError),
        (401, openai.AuthenticationError),
        (500, openai.InternalServerError),
        (503, openai.InternalServerError),
    ],
)
def test_status_codes_map_to_openai_exceptions(
    server: OpenAIServer, client: openai.OpenAI, status: int, exception: type[Exception]
) -> None:
    server.script([Reply.error(status)])
    with pytest.raises(exception) as caught:
        chat(client)
    assert isinstance(caught.value, openai.APIStatusError)
    assert caught.value.status_code == status
    body = caught.value.body
    assert isinstance(body, dict) and {"message", "type", "code"} <= body.keys()
    assert chat(client).choices[0].message.content == "A"  # the connection is still usable


def test_fault_rules_first_and_every(server: OpenAIServer, client: openai.OpenAI) -> None:
    server.fail_first(2, Reply.error(503))
    rule = server.fail_every(3, Reply.rate_limit(retry_after=1))
    outcomes = []
    for _ in range(8):
        try:
            outcomes.append(chat(client).choices[0].message.content)
        except openai.APIStatusError as exc:
            outcomes.append(exc.status_code)
    assert outcomes == [503, 503, 429, "A", "A", 429, "A", "A"]
    assert rule.fired == 2
    server.clear_rules()
    assert chat(client).choices[0].message.content == "A"


def test_response_format_validation(client: openai.OpenAI) -> None:
    schema = {"type": "object", "properties": {"verdict": {"enum": ["A", "B"]}}}
    json_object = {"type": "json_object", "schema": schema}
    json_schema = {"type": "json_schema", "json_schema": {"name": "verdict", "schema": schema}}
    assert chat(client, response_format=json_object).choices[0].message.content == "A"
    assert chat(client, response_format=json_schema).choices[0].message.content == "A"
    with pytest.raises(openai.BadRequestError):
        chat(client, response_format={"type": "yaml"})


def test_json_schema_rejected_like_llama_cpp() -> None:
    with (
        OpenAIServer(reject_json_schema=True) as server,
        openai.OpenAI(base_url=server.base_url, api_key="sk", max_retries=0) as client,
    ):
        server.script(["B"])
        json_schema = {"type": "json_schema", "json_schema": {"name": "v", "schema": {}}}
        with pytest.raises(openai.InternalServerError, match="json_schema"):
            chat(client, response_format=json_schema)
        # The rejected request consumed nothing: the fallback gets the scripted answer.
        fallback = chat(client, response_format={"type": "json_object"})
        assert fallback.choices[0].message.content == "B"


# ------------------------------------------------------------------ transport faults


@pytest.mark.parametrize("mid_headers", [False, True])
def test_dropped_connection(server: OpenAIServer, client: openai.OpenAI, mid_headers: bool) -> None:
    server.script([Reply.drop(mid_headers=mid_headers)])
    with pytest.raises(openai.APIConnectionError):
        chat(client)
    assert chat(client).choices[0].message.content == "A"


def test_hang_times_out(server: OpenAIServer) -> None:
    server.script([Reply.hang()])
    started = time.monotonic()
    with (
        openai.OpenAI(base_url=server.base_url, api_key="sk", max_retries=0, timeout=0.5) as client,
        pytest.raises(openai.APITimeoutError),
    ):
        chat(client)
    assert time.monotonic() - started < 2
    assert len(server.requests) == 1  # the hung request was still recorded


@pytest.mark.parametrize("truncated", [False, True])
def test_garbage_body(server: OpenAIServer, client: openai.OpenAI, truncated: bool) -> None:
    # openai 3.x lets json.JSONDecodeError escape rather than wrapping it in an APIError.
    server.script([Reply.garbage(truncated=truncated)])
    with pytest.raises((openai.APIError, json.JSONDecodeError)):
        chat(client)


def test_drip_sends_headers_then_one_byte_at_a_time(server: OpenAIServer) -> None:
    server.script([Reply.drip(interval=0.05)])
    body = json.dumps({"model": "m", "messages": USER}).encode()
    with raw_request(server.port, body) as sock:
        head = read_head(sock)
        assert head.startswith(b"HTTP/1.1 200 ")
        started = time.monotonic()
        received = b"".join(sock.recv(16) for _ in range(3))
        assert len(received) == 3 and received.startswith(b"{")
        assert time.monotonic() - started >= 0.1


@pytest.mark.parametrize("encoding", ["gzip", "deflate", "br", "zstd", None])
@pytest.mark.parametrize("chunked", [False, True], ids=["content-length", "chunked"])
def test_a_bomb_is_the_size_it_says_once_decoded(
    server: OpenAIServer, encoding: str | None, chunked: bool
) -> None:
    if encoding is not None and not can_encode(encoding):
        pytest.skip(f"cannot make {encoding} here")
    size = 3 << 20
    server.script([Reply.bomb(size, encoding=encoding, chunked=chunked)])
    body = {"model": "m", "messages": USER}
    with httpx.Client() as plain, plain.stream("POST", server.base_url + "/chat/completions",
                                               json=body) as response:  # fmt: skip
        raw = sum(len(part) for part in response.iter_raw())
    assert response.headers.get("content-encoding") == encoding
    assert ("content-length" in response.headers) is not chunked
    assert ("chunked" in response.headers.get("transfer-encoding", "")) is chunked
    server.script([Reply.bomb(size, encoding=encoding, chunked=chunked)])
    with openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0) as client:
        answer = chat(client).choices[0].message.content
    assert set(answer) == {"A"} and size - 300 < len(answer) < size  # the rest: JSON's frame
    assert raw < size / 100 if encoding else raw == size


def test_slow_reply_waits_its_delay(server: OpenAIServer, client: openai.OpenAI) -> None:
    server.script([Reply.slow(0.2, "B")])
    started = time.monotonic()
    assert chat(client).choices[0].message.content == "B"
    assert time.monotonic() - started >= 0.2


def test_stop_closes_hung_connections_promptly() -> None:
    server = OpenAIServer().start()
    server.script([Reply(fault=Fault.HANG)])
    body = json.dumps({"model": "m", "messages": USER}).encode()
    with raw_request(server.port, body) as sock:
        server.wait_for_requests(1)
        started = time.monotonic()
        server.stop()
        assert time.monotonic() - started < 1
        assert sock.recv(100) == b""  # closed, not answered


# ------------------------------------------------------------------ recording


def test_request_recorded_byte_for_byte(server: OpenAIServer, client: openai.OpenAI) -> None:
    tricky = 'Say {{ 7*7 }} {% raw %} {} </response> — naïve 日本語 🤖 "quoted" \\ back\nslash'
    client.chat.completions.create(
        model="judge", messages=[{"role": "user", "content": tricky}], temperature=0
    )
    recorded = server.last_request
    assert (recorded.method, recorded.path) == ("POST", "/v1/chat/completions")
    assert recorded.headers["authorization"] == "Bearer sk-test"
    assert recorded.json["messages"][0]["content"] == tricky
    assert json.loads(recorded.body) == recorded.json
    assert recorded.received_at <= time.time()

    # And by hand, where we know the exact bytes on the wire.
    raw = json.dumps({"model": "m", "messages": [{"role": "user", "content": tricky}]})
    raw_bytes = raw.encode()  # ensure_ascii: the \u escapes must survive untouched
    with raw_request(server.port, raw_bytes) as sock:
        assert read_head(sock).startswith(b"HTTP/1.1 200 ")
    assert server.last_request.body == raw_bytes
    assert server.last_request.messages[0]["content"] == tricky

    server.clear()
    assert server.requests == []


# ------------------------------------------------------------------ CLI and throughput


def test_cli_prints_ready_and_serves() -> None:
    command = [sys.executable, str(SERVER_SCRIPT), "--port", "0", "--delay-ms", "10"]
    with subprocess.Popen(
        [*command, "--answer", "B"], stdout=subprocess.PIPE, text=True
    ) as process:
        try:
            assert process.stdout is not None
            line = process.stdout.readline().strip()
            assert line.startswith("READY http://127.0.0.1:") and line.endswith("/v1")
            base_url = line.split()[1]
            with openai.OpenAI(base_url=base_url, api_key="sk", max_retries=0) as client:
                assert chat(client).choices[0].message.content == "B"
        finally:
            process.terminate()
        assert process.wait(5) == 0  # SIGTERM is a clean shutdown, not a crash


def test_throughput_2000_requests_at_concurrency_128() -> None:
    total, concurrency = 2000, 128

    async def load(base_url: str) -> tuple[int, float]:
        limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
        http_client = openai.DefaultAsyncHttpxClient(limits=limits)
        async with openai.AsyncOpenAI(
            base_url=base_url, api_key="sk", max_retries=0, http_client=http_client
        ) as aclient:
            pending = iter(range(total))
            answered = 0

            async def worker() -> None:
                nonlocal answered
                for _ in pending:
                    response = await aclient.chat.completions.create(model="m", messages=USER)
                    answered += response.choices[0].message.content == "A"

            started = time.perf_counter()
            await asyncio.gather(*(worker() for _ in range(concurrency)))
            return answered, time.perf_counter() - started

    with OpenAIServer(delay=0.1) as server:
        answered, elapsed = asyncio.run(load(server.base_url))
        connections = len({r.connection_id for r in server.requests})
    print(
        f"\n{answered} requests in {elapsed:.2f} s = {answered / elapsed:.0f} req/s "
        f"over {connections} connections (client and server share this process)"
    )
    assert answered == total
