"""`tiebreak judge`, `key`, `profile`, `reparse` and `batch`: the judge engine's commands."""

from __future__ import annotations

import argparse
import getpass
import signal
import sys
import threading

from desktop.adapters.keys import clear_key, key_source, set_key
from desktop.adapters.profiles_file import get_profile, load_profiles, save_profile
from desktop.adapters.store import open_project
from desktop.cli.main import print_json
from desktop.domain.errors import TiebreakError
from desktop.domain.profiles import ModelProfile
from desktop.domain.requests import asks_logprobs
from desktop.services.connection import ad_hoc_profile, endpoint_for, test_and_remember
from desktop.services.judging import JobOptions, JobProgress, JudgeJob
from desktop.services.project_rubrics import find_rubric


def _profile(args: argparse.Namespace) -> ModelProfile:
    if args.base_url or args.model:
        if not (args.base_url and args.model):
            raise TiebreakError("--base-url and --model go together")
        return ad_hoc_profile(args.base_url, args.model)
    return get_profile(args.profile)


def cmd_judge(args: argparse.Namespace) -> int:
    profile = _profile(args)
    if args.api_mode:
        profile = profile.with_changes(api_mode=args.api_mode)
    options = JobOptions(
        swap=args.swap,
        redo=args.redo,
        limit=args.limit,
        where=args.where,
        concurrency=args.concurrency,
        fewshot=not args.no_fewshot,
    )
    cancel = threading.Event()
    previous = signal.getsignal(signal.SIGINT)  # until the job runs, Ctrl+C interrupts
    try:
        with open_project(args.project) as store:
            rubric = find_rubric(store, args.rubric)
            endpoint = endpoint_for(profile, logprobs=asks_logprobs(profile, rubric))
            job = JudgeJob(
                store,
                rubric,
                profile,
                base_url=endpoint.base_url,
                api_key=endpoint.api_key,
                options=options,
                server=endpoint.server,
            )
            # While the job runs, Ctrl+C cancels it: every phase (a prompt rendering, a
            # request waiting on a hung server) looks at this event and ends within a
            # fraction of a second, keeping every answer already stored.
            signal.signal(signal.SIGINT, lambda *_: cancel.set())
            summary = job.run(progress=_progress_printer(), cancel=cancel)
    finally:
        signal.signal(signal.SIGINT, previous)
    p = summary.progress
    print(
        f"{p.ok:,} ok, {p.parse_failures:,} parse failures, {p.errors:,} errors,"
        f" {p.skipped:,} already judged; {summary.elapsed_s:.1f} s (model {summary.judge_model})"
    )
    for report in summary.restarts:
        sys.stderr.write(f"tiebreak: {report}; started it again\n")
    for sample in summary.errors:
        sys.stderr.write(f"  {sample}\n")
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


def _progress_printer():
    from desktop.cli.progress import stderr_progress

    report = stderr_progress("judged")

    def progress(state: JobProgress) -> None:
        report(state.done) if state.done < state.total else None

    return progress


def cmd_key(args: argparse.Namespace) -> int:
    profile = get_profile(args.profile)
    if args.key_command == "clear":
        had = clear_key(profile.name)
        print(f"profile {profile.name}: key {'removed' if had else 'was not stored'}")
        return 0
    key = (
        sys.stdin.readline().strip()
        if args.stdin or not sys.stdin.isatty()
        else getpass.getpass(f"API key for {profile.name}: ")
    )
    set_key(profile.name, key)
    print(f"profile {profile.name}: key saved in the keyring")
    return 0


def cmd_profile(args: argparse.Namespace) -> int:
    if args.profile_command == "list":
        profiles = load_profiles()
        if args.json:
            print_json({n: {**p.to_dict(), "key": key_source(p)} for n, p in profiles.items()})
        else:
            for p in profiles.values():
                where = "built-in llama.cpp server" if p.local else p.base_url
                print(
                    f"{p.name:<16} {p.model:<28} {p.api_mode:<11} {where}  (key: {key_source(p)})"
                )
        return 0
    if args.profile_command == "add":
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
        )
        save_profile(profile)
        print(f"saved profile {profile.name}")
        return 0
    profile = get_profile(args.name)
    report = test_and_remember(profile)
    print(report.summary(profile.name))
    return 0 if report.works else 1


def cmd_reparse(args: argparse.Namespace) -> int:
    from desktop.services.judging.reparse import reparse

    with open_project(args.project) as store:
        report = reparse(store, find_rubric(store, args.rubric), everything=args.all)
    print(
        f"{report.examined:,} answers parsed again: {report.now_ok:,} ok,"
        f" {report.still_failing:,} still failing"
    )
    return 0


def cmd_batch(args: argparse.Namespace) -> int:
    from pathlib import Path

    from desktop.services.judging.batch import export_batch, import_batch

    if args.batch_command == "import":
        with open_project(args.project) as store:
            report = import_batch(store, Path(args.results))
        print(
            f"{report.stored:,} results stored: {report.ok:,} ok,"
            f" {report.parse_failures:,} parse failures, {report.errors:,} errors"
        )
        return 0
    if args.batch_command == "export":
        profile = _profile(args)
        options = JobOptions(swap=args.swap, redo=args.redo, limit=args.limit, where=args.where)
        with open_project(args.project) as store:
            rubric = find_rubric(store, args.rubric)
            job = JudgeJob(store, rubric, profile, base_url="", api_key=None, options=options)
            report = export_batch(job, Path(args.out))
        print(
            f"{args.out}: {report.requests:,} requests for {report.endpoint}"
            f" ({report.skipped:,} already judged)"
        )
        return 0
    from desktop.services.judging.batch_submit import submit_batch

    profile = _profile(args)
    options = JobOptions(swap=args.swap, redo=args.redo, limit=args.limit, where=args.where)
    with open_project(args.project) as store:
        rubric = find_rubric(store, args.rubric)
        endpoint = endpoint_for(profile)
        job = JudgeJob(
            store,
            rubric,
            profile,
            base_url=endpoint.base_url,
            api_key=endpoint.api_key,
            options=options,
        )
        report = submit_batch(job, poll_seconds=args.poll, log=lambda m: sys.stderr.write(m + "\n"))
    print(
        f"{report.stored:,} results stored: {report.ok:,} ok,"
        f" {report.parse_failures:,} parse failures, {report.errors:,} errors"
    )
    return 0
