"""A server's base URL and the password it may carry (``http://user:secret@host/v1``).

The password is a secret like an API key: it is kept in the keyring, never in a file, a
message or a log. A URL is stored and shown without it (the user stays: it says whose
account the profile uses), and the password is sent as HTTP basic auth, as httpx would
send the credentials of a URL.
"""

from __future__ import annotations

from urllib.parse import SplitResult, unquote, urlsplit

from desktop.domain.errors import TiebreakError

MASK = "***"


def _parts(url: str) -> tuple[SplitResult, str, str] | None:
    """(the split URL, its userinfo, its host and port), or None for a URL without
    userinfo or one that cannot be split."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    userinfo, at, hostport = parts.netloc.rpartition("@")
    return (parts, userinfo, hostport) if at else None


def split_password(url: str) -> tuple[str, str | None]:
    """``url`` without its password (the user kept), and the password (decoded), or None
    where it holds none."""
    found = _parts(url)
    if found is None:
        return url, None
    parts, userinfo, hostport = found
    user, colon, password = userinfo.partition(":")
    if not colon:
        return url, None
    return parts._replace(netloc=f"{user}@{hostport}").geturl(), unquote(password)


def shown_url(url: str) -> str:
    """``url`` as it may be shown or logged: a password in it written as ``***``."""
    bare, password = split_password(url)
    if password is None:
        return url
    found = _parts(bare)
    assert found is not None
    parts, user, hostport = found
    return parts._replace(netloc=f"{user}:{MASK}@{hostport}").geturl()


def without_userinfo(url: str) -> str:
    """``url`` with no user and no password: what is sent as the URL when they go as auth."""
    found = _parts(url)
    return url if found is None else found[0]._replace(netloc=found[2]).geturl()


def url_user(url: str) -> str | None:
    """The user a URL names (decoded), or None where it names none (no ``user@``)."""
    found = _parts(url)
    return None if found is None else unquote(found[1].partition(":")[0])


def basic_auth(url: str, password: str | None) -> tuple[str, str] | None:
    """The (user, password) to send as basic auth for ``url``: where it names a user, with
    ``password`` (else the URL's own, else an empty one, as httpx sends a bare ``user@``);
    None where the URL names no user."""
    user = url_user(url)
    if user is None:
        return None
    return user, password if password is not None else split_password(url)[1] or ""


def url_problem(url: str) -> str | None:
    """What makes ``url`` no server's base URL (None where it is one): http or https, a
    host, a port from 1 to 65535, no spaces or control characters. Asked where a URL comes
    in, so a malformed one is one line, not httpx's InvalidURL from the first request."""
    if not url.strip():
        return "it is empty"
    if any(c.isspace() or not c.isprintable() for c in url):
        return "it holds a space or a control character"
    try:
        parts = urlsplit(url)
        port = parts.port  # ValueError for a port that is no number or out of range
    except ValueError as exc:
        return f"it cannot be read ({exc})"
    if parts.scheme.lower() not in ("http", "https"):
        return "it does not start with http:// or https://"
    if not parts.hostname:
        return "it names no host"
    if port == 0:
        return "port 0 is no server's"
    return None


def require_base_url(url: str, who: str) -> None:
    """Refuse, in one line naming ``who`` (a profile), a URL no server can be asked at."""
    problem = url_problem(url)
    if problem is not None:
        raise TiebreakError(f"{who}: base URL {shown_url(url)[:200]!r} is no server's: {problem}")
