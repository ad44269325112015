"""The user's config folder: model profiles and app settings (never keys)."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path
from typing import Any

import platformdirs

from desktop.domain.errors import TiebreakError


def config_dir() -> Path:
    """$TIEBREAK_CONFIG_DIR, else the platform's per-user config folder."""
    override = os.environ.get("TIEBREAK_CONFIG_DIR")
    return Path(override) if override else Path(platformdirs.user_config_dir("tiebreak"))


def read_toml(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise TiebreakError(f"{path}: not valid TOML ({exc})") from None
    except OSError as exc:
        raise TiebreakError(f"{path}: cannot be read ({exc.strerror})") from None


def write_toml(path: Path, data: dict[str, Any]) -> None:
    import tomli_w  # writing is rare; reading happens at every start

    from desktop.adapters.formats.atomic import atomic_text_file

    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_text_file(path) as fh:
        fh.write(tomli_w.dumps(data))
