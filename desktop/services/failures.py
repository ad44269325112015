"""An unexpected error from the operating system, in one line a user can act on: what the
command line prints instead of a traceback (a path too long, wherever one was given)."""

from __future__ import annotations

from desktop.adapters.os_errors import path_too_long


def os_failure(exc: BaseException) -> str | None:
    """The one line for an error the system raised that a user can act on; None for any
    other error."""
    return path_too_long(exc)
