"""The Figures dock's figures, computed in a process of their own and kept by the
project's data version.

A second look at a project nothing was written to since (the dock shown again, the rubric
or judge chosen again, the window opened again on the same file) is answered from what was
kept, at the cost of reading the data version (two seeks); a verdict, a judge's result or
an import changes the version (``adapters.store.revision``), and the figures are computed
again. The computing is done in a child process (``services.child_process`` says why), so
the window's event loop never waits on it, whatever the project's size.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path
from typing import TYPE_CHECKING

from desktop.adapters.store import open_project
from desktop.adapters.store.revision import data_version
from desktop.services.child_process import ChildProcess

if TYPE_CHECKING:
    from desktop.services.figure_charts import WindowFigures
    from desktop.services.rubric_choice import Judge

KEPT = 16  # figures kept, the least recently asked for dropped first
_Key = tuple[str, str, object, float]


def computed(
    path: str, rubric: str, judge: Judge, alpha: float, width: float, dimension: str | None
) -> tuple[tuple[int, int], WindowFigures]:
    """The figures and the data version they are of (read first, so a write during the
    computing makes them older than the project, never newer). Run in the child."""
    from desktop.services.figure_charts import window_figures

    with open_project(Path(path), readonly=True) as store:
        version = data_version(store.conn)
        figures = window_figures(
            store, rubric, judge, alpha=alpha, width=width, dimension=dimension
        )
        return version, figures


class KeptFigures:
    """Figures by (project, rubric, judge, alpha), each with the data version it is of."""

    def __init__(self, process: ChildProcess | None = None) -> None:
        self._process = process or ChildProcess()
        self._kept: OrderedDict[_Key, tuple[tuple[int, int], WindowFigures]] = OrderedDict()
        self._lock = threading.Lock()

    def figures(
        self,
        path: Path,
        rubric: str,
        judge: Judge,
        *,
        alpha: float,
        width: float,
        cancel: threading.Event,
        dimension: str | None = None,
    ) -> WindowFigures:
        """The figures now, ``dimension``'s charts drawn (else the first's): those kept
        where the project is unchanged since (drawn again where ``width`` differs), else
        computed in the child; kept either way."""
        key: _Key = (str(Path(path).resolve()), rubric, judge, alpha)
        with open_project(path, readonly=True) as store:
            version = data_version(store.conn)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None:
                self._kept.move_to_end(key)
        if kept is not None and kept[0] == version:
            figures = drawn(kept[1], width, dimension)
        else:
            version, figures = self._process.run(
                computed, str(path), rubric, judge, alpha, width, dimension, cancel=cancel
            )
        with self._lock:
            self._kept[key] = (version, figures)
            self._kept.move_to_end(key)
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
        return figures

    def drawn(self, figures: WindowFigures, width: float, dimension: str | None) -> WindowFigures:
        """``figures`` at ``width`` with ``dimension``'s charts drawn, kept in their place,
        so a second look shows the charts last drawn without drawing them again."""
        new = drawn(figures, width, dimension)
        with self._lock:
            for key, (version, kept) in self._kept.items():
                if kept.source is figures.source:
                    self._kept[key] = (version, new)
        return new

    def close(self) -> None:
        self._process.close()


def drawn(figures: WindowFigures, width: float, dimension: str | None) -> WindowFigures:
    """Drawn again where the width moved, else with ``dimension``'s charts added."""
    if abs(figures.width - width) >= 0.5:
        return figures.redrawn(width, dimension)
    return figures.drawn(dimension)


_SHARED: KeptFigures | None = None
_SHARED_LOCK = threading.Lock()


def kept_figures() -> KeptFigures:
    """The process's one keeper (and child process), made when first asked for."""
    global _SHARED
    with _SHARED_LOCK:
        if _SHARED is None:
            _SHARED = KeptFigures()
        return _SHARED
