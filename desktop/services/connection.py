"""Test what a profile's server can do ("Test connection", `tiebreak profile test`) and
remember it in the profile; reaching the server is ``endpoints``."""

from __future__ import annotations

import asyncio
import threading
from dataclasses import dataclass, replace
from typing import Any

from desktop.adapters.keys import store_profile
from desktop.adapters.local_server import MODEL_NAME
from desktop.adapters.model_client import ModelCallError, ModelClient
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import ModelProfile
from desktop.domain.requests import ModelRequest
from desktop.services.endpoints import endpoint_for
from desktop.services.judge_check import JudgeCheck, Progress, check_judging

PROBE_SCHEMA = {
    "type": "object",
    "properties": {"choice": {"type": "string", "enum": ["A", "B"]}},
    "required": ["choice"],
    "additionalProperties": False,
}


# A server that takes the grammar can only answer "A".
PROBE_GRAMMAR = 'root ::= "A"'


@dataclass(frozen=True)
class ConnectionReport:
    models: tuple[str, ...]
    answers: bool
    logprobs: bool
    json_schema: bool
    json_object: bool
    problems: tuple[str, ...]
    grammar: bool = False
    judging: JudgeCheck | None = None  # two demo pairs judged as a job would

    @property
    def works(self) -> bool:
        """The server answers, and judging a pair works with it."""
        return self.answers and (self.judging is None or self.judging.works)

    def summary(self, name: str) -> str:
        """One line for a person: what works on this server."""
        yes = {True: "yes", False: "no"}
        text = (
            f"profile {name}: {'answers' if self.answers else 'does NOT answer'};"
            f" logprobs {yes[self.logprobs]}; json_schema {yes[self.json_schema]};"
            f" json_object {yes[self.json_object]}; grammar {yes[self.grammar]}"
        )
        if self.judging is not None:
            text += f"; {self.judging.summary()}"
        if self.models:
            text += f"; models: {', '.join(self.models[:5])}"
        if self.problems:  # one line: a server's error may carry its traceback
            text += f"; {self.problems[0].strip().splitlines()[0]}"
        return text

    def capabilities(self) -> dict[str, bool]:
        return {
            "logprobs": self.logprobs,
            "json_schema": self.json_schema,
            "json_object": self.json_object,
            "grammar": self.grammar,
        }


def test_connection(
    profile: ModelProfile,
    *,
    quality: bool = True,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> ConnectionReport:
    """List models and send tiny requests, so `auto` modes pick the shape this server takes;
    then judge demo pairs as a job would: with ``quality``, those with a known better
    response in both orders (how good the judge is, and whether it answers by position),
    else two pairs in one order (how long a pair takes)."""
    return asyncio.run(_test(profile, quality, progress, cancel))


def test_and_remember(
    profile: ModelProfile,
    *,
    quality: bool = True,
    progress: Progress | None = None,
    cancel: threading.Event | None = None,
) -> ConnectionReport:
    """Test a profile and keep in it what its server can do, for `auto` modes, and what the
    quality check found: a judge whose verdicts flip when A and B swap judges both orders
    by default from then on. A password in its base URL goes to the keyring."""
    report = test_connection(profile, quality=quality, progress=progress, cancel=cancel)
    changes: dict[str, object] = {}
    if not profile.local:  # the built-in server's shapes are known
        changes["capabilities"] = report.capabilities()
    figures = report.judging.quality if report.judging else None
    if figures is not None and figures.pairs:
        changes.update(quality=figures.to_dict(), swap=not figures.order_consistent)
    if changes:
        store_profile(profile.with_changes(**changes))  # a URL's password to the keyring
    return report


async def _test(
    profile: ModelProfile,
    quality: bool,
    progress: Progress | None,
    cancel: threading.Event | None,
) -> ConnectionReport:
    endpoint = endpoint_for(profile)
    client = ModelClient(
        endpoint.base_url,
        endpoint.api_key,
        timeout=min(profile.timeout, 60),
        max_retries=1,
        password=endpoint.password,
    )
    problems: list[str] = []
    try:
        try:
            models = tuple(await client.list_models())
        except ModelCallError as exc:
            if exc.server_unusable:
                raise TiebreakError(str(exc)) from None
            models = ()
        model = profile.model if not profile.local else MODEL_NAME
        messages = ({"role": "user", "content": "Answer with the single letter A."},)
        prompt = "Answer with the single letter A.\nAnswer:"

        async def attempt(
            *,
            logprobs: bool = False,
            response_format: dict[str, Any] | None = None,
            grammar: str | None = None,
        ) -> tuple[bool, bool]:
            request = ModelRequest(
                api_mode=profile.api_mode,
                model=model,
                temperature=0.0,
                max_tokens=5,
                messages=messages if profile.api_mode == "chat" else (),
                prompt=None if profile.api_mode == "chat" else prompt,
                response_format=response_format,
                logprobs=logprobs,
                grammar=grammar,
            )
            try:
                completion = await client.complete(request)
            except ModelCallError as exc:
                if exc.fatal:
                    raise TiebreakError(str(exc)) from None
                problems.append(str(exc))
                return False, False
            return True, bool(completion.top_logprobs)

        answers, logprobs = await attempt(logprobs=True)
        if not answers:
            answers, _ = await attempt()
        json_schema = json_object = False
        if profile.api_mode == "chat" and answers:
            json_schema, _ = await attempt(
                response_format={
                    "type": "json_schema",
                    "json_schema": {"name": "probe", "schema": PROBE_SCHEMA, "strict": True},
                }
            )
            json_object, _ = await attempt(
                response_format={"type": "json_object", "schema": PROBE_SCHEMA}
            )
        grammar = False
        if answers:
            grammar, _ = await attempt(grammar=PROBE_GRAMMAR)
        # A shape the server refuses is a "no" above, not a problem to show: only when it
        # answers nothing do its refusals say why.
        report = ConnectionReport(
            models,
            answers,
            logprobs,
            json_schema,
            json_object,
            () if answers else tuple(problems),
            grammar,
        )
        if not answers:
            return report
        tested = profile.with_changes(capabilities=report.capabilities())
        judging = await check_judging(
            tested, endpoint, quality=quality, progress=progress, cancel=cancel
        )
        return replace(report, judging=judging)
    finally:
        await client.close()
