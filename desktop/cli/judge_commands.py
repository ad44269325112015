"""`tiebreak judge`, `key`, `reparse` and `batch`: the judge engine's commands (model
profiles and the models found on this machine: ``model_commands``).

Building the parser loads this module for every command, so the judge engine (openai
among it) is imported inside the commands that use it."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.cli import arg_types
from desktop.cli.terminal import say
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import API_MODES, ModelProfile

if TYPE_CHECKING:
    from desktop.services.judging import JobOptions, JobProgress
    from desktop.services.judging.batch import BatchImport


YES_HELP = (
    "start without asking, however many requests the run sends (above ask_above in Settings,"
    " 200 unless changed, the command asks on a terminal and refuses without one)"
)


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("judge", help="ask the judge for verdicts on the pairs")
    p.add_argument("project")
    p.add_argument("--rubric", required=True)
    p.add_argument(
        "--profile",
        action="append",
        help="model profile (default: local); several ask each in one job, its answers"
        " stored as its model's (a jury's judges)",
    )
    p.add_argument(
        "--samples",
        type=arg_types.samples,
        default=1,
        metavar="N",
        help="ask each profile N times (stored as MODEL#1 ... MODEL#N, kept as the jury"
        " 'MODEL xN': their majority, its confidence the share that agree)",
    )
    p.add_argument(
        "--temperature",
        type=arg_types.temperature,
        metavar="T",
        help="sampling temperature (default: the profile's or rubric's; 0.7 with --samples)",
    )
    p.add_argument("--jury", metavar="NAME", help="keep the judges asked as one jury, NAME")
    p.add_argument(
        "--combine",
        choices=["majority", "mean"],
        default="majority",
        help="how --jury combines its judges per dimension: majority (a tie when split"
        " evenly) or the mean of their B scores",
    )
    p.add_argument(
        "--base-url",
        type=arg_types.base_url,
        help="an OpenAI-compatible server, instead of a profile",
    )
    p.add_argument("--model", help="the model name, with --base-url")
    p.add_argument("--api-mode", choices=API_MODES)
    p.add_argument("--concurrency", type=arg_types.concurrency)
    p.add_argument("--swap", action="store_true", help="judge both orders; flag disagreement")
    p.add_argument(
        "--one-order",
        action="store_true",
        help="one order, where the profile judges both by default (its test found it biased)",
    )
    p.add_argument("--redo", action="store_true", help="ask again even where answered")
    p.add_argument(
        "--limit",
        type=arg_types.positive_int,
        help="stop when N pairs of the selection are answered by this judge, those answered"
        " before included (a cancelled run started again ends at N)",
    )
    p.add_argument("--where", help="an SQL condition on pair columns, e.g. \"category = 'math'\"")
    p.add_argument("--no-fewshot", action="store_true", help="leave out the rubric's examples")
    p.add_argument("--yes", action="store_true", help=YES_HELP)
    p.set_defaults(func=cmd_judge)

    p = sub.add_parser("key", help="store or remove a profile's API key in the OS keyring")
    p.set_defaults(func=cmd_key)
    ksub = p.add_subparsers(dest="key_command", metavar="ACTION", required=True)
    k = ksub.add_parser("set", help="read the key from the prompt (or stdin) and store it")
    k.add_argument("profile")
    k.add_argument("--stdin", action="store_true")
    k = ksub.add_parser("clear", help="remove the profile's key from the keyring")
    k.add_argument("profile")

    p = sub.add_parser("reparse", help="parse stored answers again, without calling the model")
    p.add_argument("project")
    p.add_argument("--rubric", required=True)
    p.add_argument("--all", action="store_true", help="every answer, not only parse failures")
    p.set_defaults(func=cmd_reparse)

    p = sub.add_parser(
        "batch", help="judge through OpenAI's or Anthropic's batches, vLLM's batch runner or Ray"
    )
    p.set_defaults(func=cmd_batch)
    bsub = p.add_subparsers(dest="batch_command", metavar="ACTION", required=True)
    for action in ("export", "submit"):
        b = bsub.add_parser(
            action,
            help={
                "export": "write the pending requests as a batch input file (OpenAI or Anthropic)",
                "submit": "upload to the profile's server, wait for the batch, store the results",
            }[action],
        )
        b.add_argument("project")
        b.add_argument("--rubric", required=True)
        if action == "export":
            b.add_argument("out")
            b.add_argument(
                "--shape",
                choices=("openai", "anthropic"),
                default="openai",
                help="openai (also vLLM's run-batch and examples/ray_batch.py) or anthropic",
            )
        else:
            b.add_argument(
                "--poll", type=arg_types.seconds, default=30.0, help="seconds between checks"
            )
            b.add_argument("--yes", action="store_true", help=YES_HELP)
        b.add_argument("--profile", default="local")
        b.add_argument("--base-url", type=arg_types.base_url)
        b.add_argument("--model")
        b.add_argument("--swap", action="store_true")
        b.add_argument("--redo", action="store_true")
        b.add_argument(
            "--limit",
            type=arg_types.positive_int,
            help="at most N pairs answered, those answered before included",
        )
        b.add_argument("--where")
    b = bsub.add_parser(
        "import", help="store a batch results file as results (OpenAI, vLLM, Anthropic, Ray)"
    )
    b.add_argument("project")
    b.add_argument("results")


def _profile(args: argparse.Namespace) -> ModelProfile:
    from desktop.services.endpoints import ad_hoc_profile
    from desktop.services.profiles import get_profile

    if args.base_url or args.model:
        if not (args.base_url and args.model):
            raise TiebreakError("--base-url and --model go together")
        return ad_hoc_profile(args.base_url, args.model)
    return get_profile(args.profile)


def _profiles(args: argparse.Namespace) -> list[ModelProfile]:
    """The profiles `judge` asks: --base-url's, or each --profile (default: local)."""
    from desktop.services.profiles import get_profile

    names = args.profile or ["local"]
    if args.base_url or args.model:
        if args.profile:
            raise TiebreakError("--base-url asks one server; leave out --profile")
        profiles = [_profile(args)]
    else:
        profiles = [get_profile(name) for name in names]
    if args.api_mode:
        profiles = [p.with_changes(api_mode=args.api_mode) for p in profiles]
    return profiles


def _options(args: argparse.Namespace) -> JobOptions:
    """The options every command that plans a job takes."""
    from desktop.services.judging import JobOptions

    return JobOptions(swap=args.swap, redo=args.redo, limit=args.limit, where=args.where)


def cmd_judge(args: argparse.Namespace) -> int:
    import signal
    import threading

    from desktop.cli.run_question import confirm_run
    from desktop.services.judging.panel import PanelRequest, panel
    from desktop.services.judging.run_size import run_size
    from desktop.services.projects import open_project

    if args.swap and args.one_order:
        raise TiebreakError("--swap and --one-order contradict each other")
    request = PanelRequest(
        tuple(_profiles(args)), args.samples, args.temperature, args.jury, args.combine
    )
    options = dataclasses.replace(
        _options(args),
        concurrency=args.concurrency,
        fewshot=not args.no_fewshot,
        one_order=args.one_order,
    )
    cancel = threading.Event()
    previous = signal.getsignal(signal.SIGINT)  # until the job runs, Ctrl+C interrupts
    try:
        with open_project(args.project) as store, _where_hint():
            confirm_run(run_size(store, args.rubric, request, options), yes=args.yes)
            job = panel(store, args.rubric, request, options)
            # While the job runs, Ctrl+C cancels it: every phase (a prompt rendering, a
            # request waiting on a hung server) looks at this event and ends within a
            # fraction of a second, keeping every answer already stored.
            signal.signal(signal.SIGINT, lambda *_: cancel.set())
            summary = job.run(progress=_progress_printer(), cancel=cancel)
    finally:
        signal.signal(signal.SIGINT, previous)
    p = summary.progress
    several = "judges" if len(job.jobs) > 1 else "model"
    say(
        f"{p.ok:,} ok, {p.parse_failures:,} parse failures, {p.errors:,} errors,"
        f" {p.skipped:,} already judged; {summary.elapsed_s:.1f} s"
        f" ({several} {summary.judge_model})"
    )
    for jury in job.juries:
        say(
            f"jury {jury.name!r} ({jury.combine} of {', '.join(jury.jurors)}): choose it as"
            f" a judge (--judge-model {jury.name!r}, the window's judge picker)"
        )
    for report in summary.restarts:
        say(f"tiebreak: {report}; started it again", err=True)
    for sample in summary.errors:
        say(f"  {sample}", err=True)
    if summary.stopped:
        raise TiebreakError(f"judging stopped: {summary.stopped}")
    if summary.cancelled:
        sys.stderr.write("tiebreak: cancelled; every answer received so far is saved\n")
        return 1
    if p.errors:  # a parse failure is an answer; an error is not, and the job is not done
        sys.stderr.write(
            f"tiebreak: {p.errors:,} left in error; the same command asks for them again\n"
        )
        return 1
    return 0


@contextlib.contextmanager
def _where_hint() -> Iterator[None]:
    """A rubric that cannot apply to some pairs: the one line also says how ``--where``
    judges those that have the field it needs."""
    from desktop.services.judging.applies import MissingField

    try:
        yield
    except MissingField as exc:
        if exc.lacking == exc.selected:
            raise
        raise TiebreakError(f"{exc}{exc.where_hint}") from None


def _progress_printer() -> Callable[[JobProgress], None]:
    from desktop.cli.progress import stderr_progress

    report = stderr_progress("judged")

    def progress(state: JobProgress) -> None:
        report(state.done) if state.done < state.total else None

    return progress


def cmd_key(args: argparse.Namespace) -> int:
    import getpass

    from desktop.services.profiles import clear_key, get_profile, set_key

    profile = get_profile(args.profile)
    if args.key_command == "clear":
        had = clear_key(profile.name)
        say(f"profile {profile.name}: key {'removed' if had else 'was not stored'}")
        return 0
    key = (
        sys.stdin.readline().strip()
        if args.stdin or not sys.stdin.isatty()
        else getpass.getpass(f"API key for {profile.name}: ")
    )
    set_key(profile.name, key)
    say(f"profile {profile.name}: key saved in the keyring")
    return 0


def cmd_reparse(args: argparse.Namespace) -> int:
    from desktop.services.judging.reparse import reparse
    from desktop.services.project_rubrics import find_rubric
    from desktop.services.projects import open_project

    with open_project(args.project) as store:
        report = reparse(store, find_rubric(store, args.rubric), everything=args.all)
    say(
        f"{report.examined:,} answers parsed again: {report.now_ok:,} ok,"
        f" {report.still_failing:,} still failing"
    )
    return 0


def cmd_batch(args: argparse.Namespace) -> int:
    from desktop.services.judging.batch import export_batch, import_batch
    from desktop.services.judging.setup import file_job, judge_job
    from desktop.services.projects import open_project

    if args.batch_command == "import":
        with open_project(args.project) as store:
            report = import_batch(store, Path(args.results))
        _say_stored(report)
        return 0
    profile = _profile(args)
    if args.batch_command == "export":
        with open_project(args.project) as store, _where_hint():
            job = file_job(store, args.rubric, profile, _options(args))
            exported = export_batch(job, Path(args.out), shape=args.shape)
        say(
            f"{args.out}: {exported.requests:,} requests for {exported.endpoint}"
            f" ({exported.skipped:,} already judged)"
        )
        if (note := exported.too_large()) is not None:
            say(f"note: {note}", err=True)
        return 0
    from desktop.cli.run_question import confirm_run
    from desktop.services.judging.batch_submit import submit_batch
    from desktop.services.judging.panel import PanelRequest
    from desktop.services.judging.run_size import run_size

    with open_project(args.project) as store, _where_hint():
        size = run_size(store, args.rubric, PanelRequest((profile,)), _options(args))
        confirm_run(size, yes=args.yes)
        job = judge_job(store, args.rubric, profile, _options(args))
        report = submit_batch(job, poll_seconds=args.poll, log=lambda m: say(m, err=True))
    _say_stored(report)
    return 0


def _say_stored(report: BatchImport) -> None:
    say(
        f"{report.stored:,} results stored: {report.ok:,} ok,"
        f" {report.parse_failures:,} parse failures, {report.errors:,} errors"
    )
    if report.unanswered:
        parts = [
            f"{n:,} {what}"
            for n, what in (
                (report.expired, "expired"),
                (report.canceled, "canceled"),
                (report.absent, "not in the file"),
            )
            if n
        ]
        say(
            f"{report.unanswered:,} requests not answered ({', '.join(parts)}):"
            " the next batch export asks for them"
        )
