"""The desktop's way in: a ``.desktop`` entry (menus, "Open with"), the MIME type of
``.tiebreak`` files and an icon, installed for one user under ``$XDG_DATA_HOME``
(default ``~/.local/share``) as the freedesktop.org specifications place them. The
files ship in the package (``resources/desktop``); the entry's command is written as the
absolute path of this installation's ``tiebreak``, since a desktop session's PATH seldom
holds a virtual environment's ``bin``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

from desktop.adapters.formats.atomic import atomic_text_file
from desktop.domain.errors import TiebreakError
from desktop.resources import resources_dir

MIME_TYPE = "application/x-tiebreak-project"
ENTRY = "tiebreak.desktop"
MIME_PACKAGE = "tiebreak.xml"
ICON = "tiebreak.svg"
MIME_ICON = MIME_TYPE.replace("/", "-") + ".svg"


@dataclass
class DesktopReport:
    written: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)  # the cache updaters that ran
    missing: list[str] = field(default_factory=list)  # those not installed here


def data_home() -> Path:
    value = os.environ.get("XDG_DATA_HOME", "")
    return Path(value) if os.path.isabs(value) else Path.home() / ".local" / "share"


def targets(home: Path) -> dict[str, Path]:
    return {
        ENTRY: home / "applications" / ENTRY,
        MIME_PACKAGE: home / "mime" / "packages" / MIME_PACKAGE,
        ICON: home / "icons" / "hicolor" / "scalable" / "apps" / ICON,
        MIME_ICON: home / "icons" / "hicolor" / "scalable" / "mimetypes" / MIME_ICON,
    }


def launcher() -> list[str]:
    """The command that starts this installation: its ``tiebreak`` script beside the
    interpreter (a virtual environment's ``bin``), else the one on PATH, else Python."""
    beside = Path(sys.executable).parent / "tiebreak"
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("tiebreak")
    if found:
        return [str(Path(found).absolute())]
    return [sys.executable, "-m", "desktop"]


def exec_quote(word: str) -> str:
    """A word of an Exec key, quoted as the Desktop Entry specification asks."""
    if word and not re.search(r'[\s"\'\\><~|&;$*?#()`%=]', word):
        return word
    return '"' + re.sub(r'(["`$\\])', r"\\\1", word).replace("%", "%%") + '"'


def entry_text(command: list[str]) -> str:
    """The shipped entry with Exec (and TryExec) naming ``command``."""
    source = (resources_dir() / "desktop" / "tiebreak.desktop").read_text(encoding="utf-8")
    exec_line = "Exec=" + " ".join(exec_quote(w) for w in command) + " %f"
    text = re.sub(r"(?m)^Exec=.*$", lambda _: exec_line, source)
    return re.sub(r"(?m)^TryExec=.*$", lambda _: "TryExec=" + command[0], text)


def install(home: Path | None = None) -> DesktopReport:
    home = home or data_home()
    shipped = resources_dir() / "desktop"
    contents = {
        ENTRY: entry_text(launcher()),
        MIME_PACKAGE: (shipped / "tiebreak-mime.xml").read_text(encoding="utf-8"),
        ICON: (shipped / "tiebreak.svg").read_text(encoding="utf-8"),
    }
    contents[MIME_ICON] = contents[ICON]
    report = DesktopReport()
    for name, target in targets(home).items():
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            with atomic_text_file(target) as fh:
                fh.write(contents[name])
        except OSError as exc:
            raise TiebreakError(f"{target}: cannot be written ({exc.strerror})") from None
        report.written.append(target)
    _update_caches(home, report)
    return report


def uninstall(home: Path | None = None) -> DesktopReport:
    home = home or data_home()
    report = DesktopReport()
    for target in targets(home).values():
        if target.exists():
            try:
                target.unlink()
            except OSError as exc:
                raise TiebreakError(f"{target}: cannot be removed ({exc.strerror})") from None
            report.removed.append(target)
    if report.removed:
        _update_caches(home, report)
    return report


def _update_caches(home: Path, report: DesktopReport) -> None:
    """Rebuild the caches menus and file managers read, where their tools are installed
    (and there is something to read: update-mime-database refuses a home without
    ``mime/packages``)."""
    for tool, folder, needs in (
        ("update-mime-database", home / "mime", home / "mime" / "packages"),
        ("update-desktop-database", home / "applications", home / "applications"),
    ):
        path = shutil.which(tool)
        if path is None:
            report.missing.append(tool)
            continue
        if not needs.is_dir():
            continue
        done = subprocess.run([path, str(folder)], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
            raise TiebreakError(f"{tool} {folder} failed: {reason}")
        report.ran.append(tool)
