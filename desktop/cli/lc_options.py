"""`--lc` and `--lc-files`, shared by `stats --by model` and `report`: which variant of
AlpacaEval 2.0's length-controlled win rate, and the folder of AlpacaEval's download."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.domain.errors import TiebreakError

if TYPE_CHECKING:
    from desktop.domain.length_control import GamedData

CHOICES = ("length_controlled_minimal", "length_controlled_noreg", "length_controlled_v1", "none")


def add_lc_options(p: argparse.ArgumentParser, *, where: str) -> None:
    p.add_argument(
        "--lc",
        choices=CHOICES,
        default=CHOICES[0],
        help=f"{where}AlpacaEval 2.0's length-controlled win rate, this variant (default"
        " length_controlled_minimal, which needs no download; noreg and v1, the leaderboard's,"
        " need --lc-files; none: not computed)",
    )
    p.add_argument(
        "--lc-files",
        type=Path,
        metavar="DIR",
        help=f"{where}the folder holding AlpacaEval's df_gamed.csv (instruction difficulty"
        " and the gamed baselines), for --lc length_controlled_noreg or length_controlled_v1",
    )


def lc_choice(args: argparse.Namespace) -> tuple[str | None, GamedData | None]:
    """The variant asked for (None: none) and AlpacaEval's file where it was given."""
    from desktop.domain.length_control import needs_files, read_gamed

    lc = None if args.lc == "none" else args.lc
    if args.lc_files is not None:
        return lc, read_gamed(args.lc_files)
    if lc is not None and needs_files(lc):
        raise TiebreakError(f"--lc {lc} needs AlpacaEval's df_gamed.csv: give --lc-files DIR")
    return lc, None
