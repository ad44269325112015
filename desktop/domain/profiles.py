"""A model profile: where the judge is and how to talk to it. Never holds a key."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from pathlib import PurePath
from typing import Any

from desktop.domain.errors import TiebreakError

API_MODES = ("chat", "completions")
STRUCTURED_MODES = ("auto", "json_schema", "json_object", "off")
LOCAL_PROFILE = "local"


@dataclass(frozen=True)
class ModelProfile:
    name: str
    model: str
    base_url: str | None = None  # None only for the built-in local server, started on demand
    api_mode: str = "chat"
    chat_format: str = "chatml"  # how messages become one prompt in completions mode
    structured: str = "auto"
    temperature: float | None = None  # None: the rubric's default
    max_tokens: int | None = None
    timeout: float = 120.0  # overall deadline of one request, retries not included
    concurrency: int = 8
    logprobs: bool = True
    max_retries: int = 4
    key_env: str = "OPENAI_API_KEY"
    needs_key: bool = True
    local: bool = False
    # A GGUF file the app serves itself, as it serves the built-in model.
    gguf: str | None = None
    n_ctx: int | None = None  # a GGUF server's context size; None: chosen from file and machine
    n_threads: int | None = None  # its threads; None: half the cores, as the built-in server
    # Judge both orders unless told otherwise: set where `profile test` found the model's
    # verdicts flip when A and B are swapped, so its position bias shows as flags.
    swap: bool = False
    # What the server charges, in US dollars per million prompt and answer tokens: where
    # set, the question before a big judge run says what it will cost (never sent).
    price_in: float | None = None
    price_out: float | None = None
    # What "Test connection" found the server can do; fills in the "auto" modes.
    capabilities: dict[str, bool] = field(default_factory=dict)
    # What `profile test` measured on the demo pairs with a known better answer.
    quality: dict[str, float] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.api_mode not in API_MODES:
            raise TiebreakError(
                f"profile {self.name}: api_mode must be one of {', '.join(API_MODES)}"
            )
        if self.structured not in STRUCTURED_MODES:
            raise TiebreakError(
                f"profile {self.name}: structured must be one of {', '.join(STRUCTURED_MODES)}"
            )
        if self.concurrency < 1 or self.timeout <= 0 or self.max_retries < 0:
            raise TiebreakError(
                f"profile {self.name}: concurrency, timeout and retries must be positive"
            )
        for key in ("price_in", "price_out"):
            price = getattr(self, key)
            if price is not None and not _is_price(price):
                raise TiebreakError(
                    f"profile {self.name}: {key} must be dollars per million tokens, 0 or"
                    f" more, not {price!r}"
                )
        if any(v is not None and v < 1 for v in (self.n_ctx, self.n_threads)):
            raise TiebreakError(f"profile {self.name}: n_ctx and n_threads must be positive")

    @property
    def served_here(self) -> bool:
        """The app starts this profile's server itself (llama.cpp's): the built-in model,
        or a GGUF file."""
        return self.local or self.gguf is not None

    def to_dict(self) -> dict[str, object]:
        out = asdict(self)
        out.pop("name")
        return {k: v for k, v in out.items() if v is not None and v != {}}

    @classmethod
    def from_dict(cls, name: str, data: dict[str, Any]) -> ModelProfile:
        known = set(cls.__dataclass_fields__) - {"name"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise TiebreakError(f"profile {name}: unknown setting {unknown[0]!r}")
        if "model" not in data:
            raise TiebreakError(f"profile {name}: no model given")
        return cls(name=name, **data)

    def with_changes(self, **changes: Any) -> ModelProfile:
        return replace(self, **changes)

    def structured_mode(self) -> str:
        """The structured-output shape to send: the profile's choice, else what the server
        was found to accept, else llama.cpp's shape for local servers and OpenAI's for others."""
        if self.structured != "auto":
            return self.structured
        if self.capabilities.get("json_schema"):
            return "json_schema"
        if self.capabilities.get("json_object"):
            return "json_object"
        if self.served_here or _is_loopback(self.base_url):
            return "json_object"
        return "json_schema"

    def sends_grammar(self) -> bool:
        """Whether a free-text answer (one verdict, a comma list) is constrained by a GBNF
        grammar, as a JSON answer is by a schema: never with structured output off; else
        whether Test connection found the server takes one; untested, only the built-in
        server (llama.cpp's, built-in or a GGUF file), since other servers may refuse it."""
        if self.structured == "off":
            return False
        if "grammar" in self.capabilities:
            return bool(self.capabilities["grammar"])
        return self.served_here


def _is_price(value: object) -> bool:
    return (
        isinstance(value, int | float)
        and not isinstance(value, bool)
        and math.isfinite(value)
        and value >= 0
    )


def local_profile() -> ModelProfile:
    """The offline default: llama.cpp's server with the bundled SmolLM2-135M model."""
    return ModelProfile(
        name=LOCAL_PROFILE,
        model="SmolLM2-135M-Instruct",
        api_mode="chat",
        structured="json_object",
        concurrency=1,
        timeout=300.0,
        needs_key=False,
        local=True,
    )


def gguf_profile(name: str, path: str, **settings: Any) -> ModelProfile:
    """A profile for a GGUF file the app serves: the judge named after the file, asked one
    request at a time as the built-in server is (llama.cpp's server answers one at a time)."""
    base: dict[str, Any] = {
        "model": PurePath(path).stem,
        "gguf": path,
        "api_mode": "chat",
        "concurrency": 1,
        "timeout": 600.0,
        "needs_key": False,
    }
    return ModelProfile(name=name, **{**base, **settings})


def settings_hash(
    profile: ModelProfile,
    *,
    temperature: float,
    max_tokens: int,
    structured: str,
    logprobs: bool,
    fewshot: bool,
) -> str:
    """What besides the prompt shapes an answer; part of the cache key of every result."""
    payload = {
        "api_mode": profile.api_mode,
        "chat_format": profile.chat_format if profile.api_mode == "completions" else None,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "structured": structured,
        "logprobs": logprobs,
        "fewshot": fewshot,
    }
    import hashlib  # loads OpenSSL: only when something is hashed

    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()[:16]


def _is_loopback(url: str | None) -> bool:
    if not url:
        return False
    host = url.split("://", 1)[-1].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
    return host in ("localhost", "::1") or host.startswith("127.")
