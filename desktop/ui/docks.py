"""The window's docks, in one table: MainWindow makes each with the WindowContext, binds
its keys and asks it whether it is open; what a dock shows follows the changes it reads
from ``context.changed`` (desktop/ui/context.py). A new dock is a module of its own and a
line here: see docs/ARCHITECTURE.md, "How to add a dock"."""

from __future__ import annotations

from typing import Protocol

from desktop.ui.agreement_dock import AgreementDock
from desktop.ui.context import WindowContext
from desktop.ui.figures_dock import FiguresDock
from desktop.ui.generators_dock import GeneratorsDock
from desktop.ui.guidance_dock import GuidanceDock
from desktop.ui.judges_dock import JudgesDock
from desktop.ui.shortcuts import Shortcuts


class Dock(Protocol):
    """What the window asks of a dock. A dock whose class sets ``shown_setting`` (a name)
    opens again at the next start if it was open when the window closed."""

    def __init__(self, context: WindowContext) -> None: ...

    def bind(self, shortcuts: Shortcuts) -> None: ...

    def is_open(self) -> bool: ...

    def show(self, shown: bool) -> None: ...


DOCKS: tuple[type[Dock], ...] = (
    AgreementDock,
    FiguresDock,
    GuidanceDock,
    JudgesDock,
    GeneratorsDock,
)
