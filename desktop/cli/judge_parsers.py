"""Argument parsers of the judge engine's commands (no heavy imports: start-up stays fast)."""

from __future__ import annotations

import argparse

from desktop.cli.arg_types import positive_float, positive_int


def add_parsers(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("judge", help="ask the judge for verdicts on the pairs")
    p.add_argument("project")
    p.add_argument("--rubric", required=True)
    p.add_argument("--profile", default="local", help="model profile (default: local)")
    p.add_argument("--base-url", help="an OpenAI-compatible server, instead of a profile")
    p.add_argument("--model", help="the model name, with --base-url")
    p.add_argument("--api-mode", choices=["chat", "completions"])
    p.add_argument("--concurrency", type=positive_int)
    p.add_argument("--swap", action="store_true", help="judge both orders; flag disagreement")
    p.add_argument("--redo", action="store_true", help="ask again even where answered")
    p.add_argument("--limit", type=positive_int, help="judge at most N pairs not yet judged")
    p.add_argument("--where", help="an SQL condition on pair columns, e.g. \"category = 'math'\"")
    p.add_argument("--no-fewshot", action="store_true", help="leave out the rubric's examples")

    p = sub.add_parser("key", help="store or remove a profile's API key in the OS keyring")
    ksub = p.add_subparsers(dest="key_command", metavar="ACTION", required=True)
    k = ksub.add_parser("set", help="read the key from the prompt (or stdin) and store it")
    k.add_argument("profile")
    k.add_argument("--stdin", action="store_true")
    k = ksub.add_parser("clear")
    k.add_argument("profile")

    p = sub.add_parser("profile", help="model profiles")
    psub = p.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    q = psub.add_parser("list")
    q.add_argument("--json", action="store_true")
    q = psub.add_parser("add")
    q.add_argument("name")
    q.add_argument("--base-url", required=True)
    q.add_argument("--model", required=True)
    q.add_argument("--api-mode", default="chat", choices=["chat", "completions"])
    q.add_argument("--chat-format", default="chatml", choices=["chatml", "llama3", "plain"])
    q.add_argument(
        "--structured", default="auto", choices=["auto", "json_schema", "json_object", "off"]
    )
    q.add_argument("--concurrency", type=positive_int, default=8)
    q.add_argument("--timeout", type=positive_float, default=120.0)
    q.add_argument("--no-logprobs", action="store_true")
    q.add_argument("--key-env", default="OPENAI_API_KEY")
    q.add_argument("--no-key", action="store_true", help="the server needs no key")
    q = psub.add_parser("test", help="test the connection and record what the server supports")
    q.add_argument("name")

    p = sub.add_parser("reparse", help="parse stored answers again, without calling the model")
    p.add_argument("project")
    p.add_argument("--rubric", required=True)
    p.add_argument("--all", action="store_true", help="every answer, not only parse failures")

    p = sub.add_parser("batch", help="judge through OpenAI's Batch API or vLLM's batch runner")
    bsub = p.add_subparsers(dest="batch_command", metavar="ACTION", required=True)
    for action in ("export", "submit"):
        b = bsub.add_parser(
            action,
            help={
                "export": "write the pending requests as an OpenAI Batch input file",
                "submit": "upload to the profile's server, wait for the batch, store the results",
            }[action],
        )
        b.add_argument("project")
        b.add_argument("--rubric", required=True)
        if action == "export":
            b.add_argument("out")
        else:
            b.add_argument(
                "--poll", type=positive_float, default=30.0, help="seconds between checks"
            )
        b.add_argument("--profile", default="local")
        b.add_argument("--base-url")
        b.add_argument("--model")
        b.add_argument("--swap", action="store_true")
        b.add_argument("--redo", action="store_true")
        b.add_argument("--limit", type=positive_int, help="at most N pairs not yet judged")
        b.add_argument("--where")
    b = bsub.add_parser("import", help="store a batch output file as results")
    b.add_argument("project")
    b.add_argument("results")
