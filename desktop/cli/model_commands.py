"""`tiebreak profile` (model profiles: a server, or a GGUF file the app serves) and
`tiebreak models` (the models already on this machine, and turning one into a profile)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

from desktop.cli import arg_types
from desktop.cli.terminal import say
from desktop.domain.chat_formats import CHAT_FORMATS
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import API_MODES, STRUCTURED_MODES, ModelProfile

if TYPE_CHECKING:
    from desktop.services.model_listing import FoundFile, FoundModels, FoundServerModel


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("profile", help="model profiles")
    p.set_defaults(func=cmd_profile)
    psub = p.add_subparsers(dest="profile_command", metavar="ACTION", required=True)
    q = psub.add_parser("list", help="the profiles, each with its server or file and key")
    q.add_argument("--json", action="store_true")
    q = psub.add_parser("add", help="a server (--base-url, --model) or a GGUF file (--gguf)")
    q.add_argument("name")
    q.add_argument("--gguf", metavar="PATH", help="a GGUF model file, served by the app")
    q.add_argument(
        "--n-ctx", type=arg_types.context_tokens, help="with --gguf: context size in tokens"
    )
    q.add_argument("--threads", type=arg_types.threads, help="with --gguf: CPU threads")
    q.add_argument("--base-url", type=arg_types.base_url)
    q.add_argument("--model")
    q.add_argument("--api-mode", default="chat", choices=API_MODES)
    q.add_argument("--chat-format", default="chatml", choices=list(CHAT_FORMATS))
    q.add_argument("--structured", default="auto", choices=STRUCTURED_MODES)
    q.add_argument("--concurrency", type=arg_types.concurrency, default=8)
    q.add_argument("--timeout", type=arg_types.seconds, default=120.0)
    q.add_argument("--no-logprobs", action="store_true")
    q.add_argument("--key-env", default="OPENAI_API_KEY")
    q.add_argument("--no-key", action="store_true", help="the server needs no key")
    for side, tokens in (("in", "prompt"), ("out", "answer")):
        q.add_argument(
            f"--price-{side}",
            type=arg_types.price,
            metavar="USD",
            help=f"dollars per million {tokens} tokens; a big judge run's question then says"
            " what it will cost",
        )
    q = psub.add_parser("test", help="test the connection and record what the server supports")
    q.add_argument("name")
    q.add_argument(
        "--quick", action="store_true", help="two demo pairs in one order, no quality figures"
    )

    p = sub.add_parser("models", help="GGUF files and model servers already on this machine")
    p.add_argument("--add", metavar="N", help="make a profile of the model numbered N")
    p.add_argument("--name", help="with --add: the profile's name")
    p.add_argument("--no-servers", action="store_true", help="list files only")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_models)


def cmd_profile(args: argparse.Namespace) -> int:
    from desktop.cli.terminal import print_json
    from desktop.domain.base_urls import shown_url
    from desktop.services.profiles import get_profile, key_source, save_profile, shown_profiles

    if args.profile_command == "list":
        profiles = shown_profiles()  # a pasted key hidden
        if args.json:
            print_json({n: _listed(p) for n, p in profiles.items()})
        else:
            for p in profiles.values():
                where = (
                    "built-in llama.cpp server"
                    if p.local
                    else f"llama.cpp server for {p.gguf}"
                    if p.gguf
                    else shown_url(p.base_url or "")
                )
                say(f"{p.name:<16} {p.model:<28} {p.api_mode:<11} {where}  (key: {key_source(p)})")
        return 0
    if args.profile_command == "add":
        return _add_profile(args, save_profile)
    from desktop.services.connection import test_and_remember

    profile = get_profile(args.name)
    report = test_and_remember(profile, quality=not args.quick, progress=_quality_progress())
    say(report.summary(profile.name))
    return 0 if report.works else 1


def _listed(profile: ModelProfile) -> dict[str, object]:
    """A profile as `profile list --json` shows it: where its key is, never a password."""
    from desktop.domain.base_urls import shown_url
    from desktop.services.profiles import key_source

    listed: dict[str, object] = profile.to_dict()
    if profile.base_url:
        listed["base_url"] = shown_url(profile.base_url)
    return {**listed, "key": key_source(profile)}


def _quality_progress() -> Callable[[int, int], None]:
    from desktop.cli.progress import stderr_progress

    report = stderr_progress("demo answers")
    return lambda done, total: report(done) if done < total else None


def _add_profile(
    args: argparse.Namespace, save_profile: Callable[[ModelProfile], ModelProfile]
) -> int:
    from pathlib import Path

    from desktop.domain.base_urls import split_password

    if args.gguf:
        if args.base_url or args.model:
            raise TiebreakError("--gguf names the model file; leave out --base-url and --model")
        if args.price_in is not None or args.price_out is not None:
            raise TiebreakError("a GGUF file the app serves costs nothing; leave out --price-*")
        from desktop.services.model_listing import add_gguf_profile, describe_gguf

        profile = add_gguf_profile(
            args.name, Path(args.gguf), n_ctx=args.n_ctx, threads=args.threads
        )
        say(f"saved profile {profile.name}: {describe_gguf(profile)}")
        return 0
    if not (args.base_url and args.model):
        raise TiebreakError("a profile needs --base-url and --model, or --gguf PATH")
    if args.n_ctx or args.threads:
        raise TiebreakError("--n-ctx and --threads go with --gguf")
    profile = ModelProfile(
        name=args.name,
        model=args.model,
        base_url=args.base_url,
        api_mode=args.api_mode,
        chat_format=args.chat_format,
        structured=args.structured,
        concurrency=args.concurrency,
        timeout=args.timeout,
        logprobs=not args.no_logprobs,
        key_env=args.key_env,
        needs_key=not args.no_key,
        price_in=args.price_in,
        price_out=args.price_out,
    )
    save_profile(profile)  # a password in the URL goes to the keyring
    kept = " (the password in its base URL is kept in the keyring)"
    say(f"saved profile {profile.name}{kept if split_password(args.base_url)[1] else ''}")
    return 0


def cmd_models(args: argparse.Namespace) -> int:
    from desktop.cli.terminal import print_json
    from desktop.services.model_listing import add_found, find_models

    found = find_models(servers=not args.no_servers)
    if args.add is not None:
        entry = _chosen(found, args.add)
        profile = add_found(entry, args.name)
        say(f"saved profile {profile.name} ({_where(profile)})")
        return 0
    if args.json:
        from dataclasses import asdict

        print_json(
            {
                "files": [asdict(f) for f in found.files],
                "servers": [asdict(s) for s in found.servers],
            }
        )
        return 0
    _print_found(found)
    return 0


def _where(profile: ModelProfile) -> str:
    return f"GGUF file {profile.gguf}" if profile.gguf else f"{profile.model} at {profile.base_url}"


def _chosen(found: FoundModels, wanted: str) -> FoundFile | FoundServerModel:
    """The entry numbered ``wanted``, or the one whose label or path is ``wanted``."""
    from desktop.services.model_listing import FoundFile

    entries = found.entries()
    if wanted.isdigit() and 1 <= int(wanted) <= len(entries):
        return entries[int(wanted) - 1]
    for entry in entries:
        names = (entry.label, entry.path) if isinstance(entry, FoundFile) else (entry.model.name,)
        if wanted in names:
            return entry
    raise TiebreakError(
        f"no model {wanted!r} among the {len(entries)} found; 'tiebreak models' numbers them"
    )


def _print_found(found: FoundModels) -> None:
    from desktop.domain.gguf_types import parameter_label
    from desktop.domain.model_fit import size_text

    number = 0
    if not found.files and not found.servers:
        say(
            "no GGUF files or model servers found"
            " (see docs/judges.md: 'Models already on this machine')"
        )
        return
    for file in found.files:
        number += 1
        if file.problem:
            say(f"{number:>3}  {file.source:<13} {file.label}  cannot be used: {file.problem}")
            continue
        params = parameter_label(file.parameters) if file.parameters else "?"
        say(
            f"{number:>3}  {file.source:<13} {file.label}  {file.name} · {file.architecture}"
            f" · {params} · {file.quantization} · {size_text(file.size)}  {file.path}"
        )
    for server in found.servers:
        if server.problem:
            say(
                f"     {server.kind:<13} {server.base_url}  (answers, but its model list"
                f" cannot be read: {server.problem})"
            )
        elif not server.models:
            say(f"     {server.kind:<13} {server.base_url}  (answers, no models loaded)")
        for model in server.models:
            number += 1
            facts = [x for x in (model.family, model.parameters, model.quantization) if x]
            if model.size:
                facts.append(size_text(model.size))
            detail = f"  {' · '.join(facts)}" if facts else ""
            say(f"{number:>3}  {server.kind:<13} {model.name}{detail}  {server.base_url}")
    say("'tiebreak models --add N' makes a profile of model N")
