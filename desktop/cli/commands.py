"""One function per `tiebreak` command; each returns the exit code."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.adapters.store.rubrics import latest_rubric, own_rubric_names
from desktop.cli.main import print_json
from desktop.cli.progress import stderr_progress
from desktop.domain.columns import parse_map_options
from desktop.domain.errors import TiebreakError
from desktop.domain.render import check_cost
from desktop.services import rubric_catalog
from desktop.services.exporting import choose_rubric, export_project
from desktop.services.importing import import_file
from desktop.services.overrides import override, parse_verdict
from desktop.services.project_rubrics import add_rubric, find_rubric
from desktop.services.rubric_index import dimensions_for


def cmd_new(args: argparse.Namespace) -> int:
    open_project(args.project, create=True).close()
    print(f"created {args.project}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    mapping = parse_map_options(args.map)
    with open_project(args.project) as store:
        report = import_file(
            store,
            args.file,
            fmt=args.format,
            mapping=mapping,
            rubric=args.rubric,
            progress=stderr_progress("imported records"),
        )
    print(f"{args.file}: {report.summary()}")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    fmt = args.format or ("jsonl" if args.out.suffix.lower() in (".jsonl", ".ndjson") else "csv")
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
    print(f"{args.out}: {report.rows:,} rows{what}{report.guard_note}")
    return 0


def cmd_rubrics(args: argparse.Namespace) -> int:
    rubrics = list(rubric_catalog.list_rubrics())
    if args.project:
        with open_project(args.project, readonly=True) as store:
            known = {r.name for r in rubrics}
            rubrics += [find_rubric(store, n) for n in own_rubric_names(store) if n not in known]
    if args.json:
        print_json(
            [
                {
                    "name": r.name,
                    "title": r.title,
                    "description": r.description,
                    "dimensions": list(r.dimensions),
                    "requires": list(r.requires),
                    "answer_format": r.answer.kind.value,
                    "hash": r.content_hash,
                }
                for r in rubrics
            ]
        )
        return 0
    width = max((len(r.name) for r in rubrics), default=4)
    for r in rubrics:
        needs = f"  needs {', '.join(r.requires)}" if r.requires else ""
        print(f"{r.name:<{width}}  {r.title}  [{', '.join(r.dimensions)}]{needs}")
    return 0


def cmd_rubric(args: argparse.Namespace) -> int:
    from desktop.adapters.rubric_files import dump_rubric

    if args.rubric_command == "show":
        if args.project:
            with open_project(args.project, readonly=True) as store:
                rubric = find_rubric(store, args.name)
        else:
            rubric = find_rubric(None, args.name)
        sys.stdout.write(dump_rubric(rubric))
        return 0
    rubric = _read_rubric_file(args)
    check_cost(rubric)  # a template too slow or too big on a sample pair is refused here
    with open_project(args.project) as store:
        add_rubric(store, rubric)
    print(
        f"added rubric {rubric.name} [{', '.join(rubric.dimensions)}],"
        f" answer format {rubric.answer.kind.value}, to {args.project}"
    )
    return 0


def _read_rubric_file(args: argparse.Namespace):
    from desktop.adapters.rubric_files import load_rubric
    from desktop.domain.template_import import rubric_from_template

    path: Path = args.file
    if not path.is_file():
        raise TiebreakError(f"{path}: no such file")
    if path.suffix.lower() == ".toml":
        return load_rubric(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TiebreakError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    dims = (
        tuple(d.strip() for d in args.dimensions.split(",") if d.strip())
        if args.dimensions
        else None
    )
    name = args.name or _slug(path.stem)
    return rubric_from_template(
        text, name=name, title=args.title, dimensions=dims, answer_kind=args.answer_format
    )


def _slug(stem: str) -> str:
    out = "".join(c if c.isalnum() else "-" for c in stem.lower()).strip("-")
    while "--" in out:
        out = out.replace("--", "-")
    return out or "rubric"


def cmd_override(args: argparse.Namespace) -> int:
    verdict = None if args.verdict.lower() == "clear" else parse_verdict(args.verdict)
    with open_project(args.project) as store:
        rubric = args.rubric or choose_rubric(store, None)
        if rubric is None:
            raise TiebreakError(
                f"{args.project}: no rubric has verdicts yet; name one with --rubric"
            )
        pair = find_pair(store, args.pair_id)
        dims = dimensions_for(store, rubric)
        if args.dimension not in dims:
            raise TiebreakError(
                f"rubric {rubric} has no dimension {args.dimension!r} (it has {', '.join(dims)})"
            )
        with store.transaction():
            if latest_rubric(store, rubric) is None:
                add_rubric(store, find_rubric(store, rubric))  # traceable to its text
            override(
                store,
                pair,
                rubric=rubric,
                dimensions=dims,
                dimension=args.dimension,
                verdict=verdict,
                reviewer=args.reviewer,
                note=args.note,
                mode="cli",
            )
    shown = verdict.value if verdict else "cleared"
    print(f"{pair.label}: {args.dimension} = {shown} (rubric {rubric})")
    return 0


def cmd_install_desktop(args: argparse.Namespace) -> int:
    from desktop.adapters import desktop_entry

    if args.uninstall:
        report = desktop_entry.uninstall()
        for path in report.removed:
            print(f"removed {path}")
    else:
        report = desktop_entry.install()
        for path in report.written:
            print(f"wrote {path}")
    for tool in report.ran:
        print(f"ran {tool}")
    for tool in report.missing:
        print(f"{tool} is not installed here: the desktop sees the change at its next start")
    return 0
