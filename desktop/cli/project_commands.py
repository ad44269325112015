"""`tiebreak new`, `import` and `export`: a project file, the pairs that go in, the
labelled rows that come out."""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop.cli.terminal import say
from desktop.services.exporting import EXPORT_FORMATS
from desktop.services.importing import FORMAT_HELP, IMPORT_FORMATS
from desktop.services.preference_export import PREFERENCE_FORMATS


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("new", help="create an empty project file")
    p.add_argument("project", type=Path)
    p.set_defaults(func=cmd_new)

    p = sub.add_parser(
        "import",
        help="import pairs and the verdicts that come with them, or two Inspect AI runs",
        description="Import a data file (or every data file under a folder), or with --runs"
        " two Inspect AI eval logs of one task: one pair of trajectories per sample both"
        " logs hold (matched by sample id and epoch).",
    )
    p.add_argument("project", type=Path)
    p.add_argument(
        "file",
        type=Path,
        nargs="?",
        help="a data file, or a folder: every data file under it (not with --runs)",
    )
    p.add_argument(
        "--runs",
        nargs=2,
        type=Path,
        metavar=("LOG_A", "LOG_B"),
        help="two Inspect AI eval logs (.eval or .json) of one task, read with inspect_ai"
        " (pip install 'tiebreak[inspect]'): each sample both hold becomes a pair, LOG_A's"
        " run as A, each log's model as its generator, its scores kept as metadata",
    )
    p.add_argument("--format", default="auto", choices=IMPORT_FORMATS, help=FORMAT_HELP)
    p.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="FIELD=COLUMN",
        help="take a pair field from a column of another name (repeatable)",
    )
    p.add_argument("--rubric", help="rubric name that imported verdicts belong to")
    p.add_argument(
        "--pair-with",
        metavar="all|MODEL",
        help="a FastChat folder's answers: every pair of models (all, the default), or"
        " each model against the baseline MODEL",
    )
    p.set_defaults(func=cmd_import, usage_error=p.error)

    p = sub.add_parser(
        "index",
        help="build the search index for the pairs a large import left out of it, and"
        " measure their answers for the figures",
        description="A large import returns before its pairs are in the search index (the"
        " search reads them whole meanwhile, and finds every match) and before their answers"
        " are measured for the figures (lengths, lists, tokens, markdown; a figure measures"
        " what it needs meanwhile), and does both in a process of its own; this does what is"
        " left of it now, a chunk a transaction.",
    )
    p.add_argument("project", type=Path)
    p.add_argument("--quiet", action="store_true", help="say nothing")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("export", help="export one row per pair with verdicts")
    p.add_argument("project", type=Path)
    p.add_argument("out", type=Path)
    p.add_argument("--rubric")
    p.add_argument("--judge-model", help="whose judge verdicts (default: the latest used)")
    p.add_argument(
        "--format",
        default=None,
        choices=(*EXPORT_FORMATS, *PREFERENCE_FORMATS),
        help="default: from the file name, else csv; trl and openai-preference write"
        " training records from the reviewers' labels (ties, disputes, broken and"
        " unlabelled pairs left out and counted)",
    )
    p.add_argument(
        "--dimension",
        help="trl, openai-preference: whose labels (default: overall, or the only one)",
    )
    p.add_argument(
        "--include-judge",
        action="store_true",
        help="trl, openai-preference: where no reviewer labelled a pair, take the judge's"
        " verdict (each such record says source judge, with the model and confidence)",
    )
    p.add_argument(
        "--min-confidence",
        type=float,
        help="with --include-judge: only the judge's verdicts at least this confident (0-1)",
    )
    p.add_argument(
        "--include-accepted",
        action="store_true",
        help="trl, openai-preference: labels that rest only on judge verdicts accepted"
        " with Enter too (source accepted)",
    )
    p.add_argument(
        "--no-formula-guard",
        dest="formula_guard",
        action="store_false",
        help="CSV for programs: write text cells exactly, even those a spreadsheet would"
        " read as a formula (= + - @ tab CR); JSONL is always exact",
    )
    p.set_defaults(func=cmd_export)


def cmd_new(args: argparse.Namespace) -> int:
    from desktop.services.projects import open_project

    open_project(args.project, create=True).close()
    say(f"created {args.project}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from desktop.cli.progress import stderr_progress
    from desktop.domain.columns import parse_map_options
    from desktop.services.importing import import_file
    from desktop.services.projects import open_project

    if args.runs is not None:
        return _import_runs(args)
    if args.file is None:
        args.usage_error("name a data file to import, or two Inspect AI logs with --runs")
    mapping = parse_map_options(args.map)
    with open_project(args.project) as store:
        report = import_file(
            store,
            args.file,
            fmt=args.format,
            mapping=mapping,
            rubric=args.rubric,
            progress=stderr_progress("imported records"),
            pair_with=args.pair_with,
        )
    say(f"{args.file}: {report.summary()}")
    _index_later(args.project, report.unindexed)
    return 0


def _index_later(project: Path, unindexed: int) -> None:
    """The pairs the import left out of the search index go into it, and their answers are
    measured for the figures, in a process of its own: this one returns now, and the
    search and the figures read the pairs whole meanwhile."""
    if not unindexed:
        return
    from desktop.services.search_indexing import index_in_background

    index_in_background(project)
    say(f"{unindexed:,} pairs are being added to the search index in the background")


def cmd_index(args: argparse.Namespace) -> int:
    from desktop.services.answer_measuring import measure_backlog
    from desktop.services.projects import open_project
    from desktop.services.search_indexing import index_backlog

    with open_project(args.project) as store:
        indexed = index_backlog(store)
        measured = measure_backlog(store)
    if not args.quiet:
        say(
            f"{args.project}: {indexed:,} pairs added to the search index,"
            f" {measured:,} pairs' answers measured"
        )
    return 0


def _import_runs(args: argparse.Namespace) -> int:
    from desktop.cli.progress import stderr_progress
    from desktop.services.inspect_import import import_runs
    from desktop.services.projects import open_project

    given = [
        (args.file is not None, "a data file"),
        (args.format != "auto", "--format"),
        (bool(args.map), "--map"),
        (args.rubric is not None, "--rubric"),
        (args.pair_with is not None, "--pair-with"),
    ]
    for present, what in given:
        if present:
            args.usage_error(f"--runs imports two Inspect AI logs; {what} is not for it")
    log_a, log_b = args.runs
    with open_project(args.project) as store:
        report = import_runs(store, log_a, log_b, progress=stderr_progress("imported samples"))
    say(f"{log_a} vs {log_b}: {report.summary()}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from desktop.cli.progress import stderr_progress
    from desktop.services.exporting import export_project, format_for
    from desktop.services.projects import open_project

    fmt = args.format or format_for(args.out)
    if fmt in PREFERENCE_FORMATS:
        return _export_preferences(args, fmt)
    for given, option in (
        (args.dimension is not None, "--dimension"),
        (args.include_judge, "--include-judge"),
        (args.min_confidence is not None, "--min-confidence"),
        (args.include_accepted, "--include-accepted"),
    ):
        if given:
            from desktop.domain.errors import TiebreakError

            raise TiebreakError(f"{option} is for --format trl or openai-preference")
    with open_project(args.project, readonly=True) as store:
        report = export_project(
            store,
            args.out,
            rubric=args.rubric,
            fmt=fmt,
            judge_model=args.judge_model,
            progress=stderr_progress("exported rows"),
            formula_guard=args.formula_guard,
        )
    what = (
        f" (rubric {report.rubric}, judge {report.judge_model or 'none'})" if report.rubric else ""
    )
    say(f"{args.out}: {report.rows:,} rows{what}{report.guard_note}")
    return 0


def _export_preferences(args: argparse.Namespace, fmt: str) -> int:
    from desktop.cli.progress import stderr_progress
    from desktop.services.preference_export import export_preferences
    from desktop.services.projects import open_project

    with open_project(args.project, readonly=True) as store:
        report = export_preferences(
            store,
            args.out,
            fmt=fmt,
            rubric=args.rubric,
            dimension=args.dimension,
            judge_model=args.judge_model,
            include_judge=args.include_judge,
            min_confidence=args.min_confidence,
            include_accepted=args.include_accepted,
            progress=stderr_progress("exported records"),
        )
    say(f"{args.out}: {report.summary()}")
    return 0
