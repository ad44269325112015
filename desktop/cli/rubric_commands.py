"""`tiebreak rubrics` and `tiebreak rubric add|show`: the judge prompts on offer, and a
user's own added to a project."""

from __future__ import annotations

import argparse
from pathlib import Path

from desktop.cli.terminal import say
from desktop.domain.rubric import AnswerKind, Rubric


def add_parsers(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rubrics", help="list the rubrics available")
    p.add_argument("--json", action="store_true")
    p.add_argument("--project", type=Path, help="include rubrics added to this project")
    p.set_defaults(func=cmd_rubrics)

    p = sub.add_parser("rubric", help="manage rubrics")
    rsub = p.add_subparsers(dest="rubric_command", metavar="ACTION", required=True)
    r = rsub.add_parser("add", help="add a rubric file or a plain-text judge template to a project")
    r.add_argument("project", type=Path)
    r.add_argument("file", type=Path)
    r.add_argument("--name", help="default: from the file name")
    r.add_argument("--title")
    r.add_argument("--dimensions", help="comma-separated (default: inferred)")
    r.add_argument(
        "--answer-format",
        choices=[kind.value for kind in AnswerKind],
        help="default: inferred from the template",
    )
    r.set_defaults(func=cmd_rubric_add)
    r = rsub.add_parser("show", help="print a rubric file")
    r.add_argument("name")
    r.add_argument("--project", type=Path)
    r.set_defaults(func=cmd_rubric_show)


def cmd_rubrics(args: argparse.Namespace) -> int:
    from desktop.cli.terminal import print_json
    from desktop.services import rubric_catalog
    from desktop.services.project_rubrics import own_rubrics
    from desktop.services.projects import open_project

    rubrics = list(rubric_catalog.list_rubrics())
    if args.project:
        with open_project(args.project, readonly=True) as store:
            rubrics += own_rubrics(store, besides={r.name for r in rubrics})
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
        say(f"{r.name:<{width}}  {r.title}  [{', '.join(r.dimensions)}]{needs}")
    return 0


def cmd_rubric_show(args: argparse.Namespace) -> int:
    import sys

    from desktop.services.project_rubrics import find_rubric, rubric_text
    from desktop.services.projects import open_project

    if args.project:
        with open_project(args.project, readonly=True) as store:
            rubric = find_rubric(store, args.name)
    else:
        rubric = find_rubric(None, args.name)
    sys.stdout.write(rubric_text(rubric))
    return 0


def cmd_rubric_add(args: argparse.Namespace) -> int:
    from desktop.services.project_rubrics import add_rubric
    from desktop.services.projects import open_project
    from desktop.services.rendering import check_cost

    rubric = _read_rubric_file(args)
    check_cost(rubric)  # a template too slow or too big on a sample pair is refused here
    with open_project(args.project) as store:
        add_rubric(store, rubric)
    say(
        f"added rubric {rubric.name} [{', '.join(rubric.dimensions)}],"
        f" answer format {rubric.answer.kind.value}, to {args.project}"
    )
    return 0


def _read_rubric_file(args: argparse.Namespace) -> Rubric:
    from desktop.services.rubric_intake import read_rubric_file

    dims = (
        tuple(d.strip() for d in args.dimensions.split(",") if d.strip())
        if args.dimensions
        else None
    )
    return read_rubric_file(
        args.file,
        name=args.name,
        title=args.title,
        dimensions=dims,
        answer_kind=args.answer_format,
    )
