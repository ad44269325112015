"""The ranges in which a number a person gives means something, shared by the command
line's options (``cli/arg_types.py``) and the services that take the same numbers from
Python or the window, so both refuse the same values."""

from __future__ import annotations

#: The largest integer SQLite stores: a seed or a row number beyond it cannot be kept or
#: looked up (Python's sqlite3 raises OverflowError).
SQLITE_MAX = 2**63 - 1

#: Bootstrap rounds of the ratings: percentiles settle long before (the default is 1,000);
#: beyond this a run takes hours and its (rounds x models) array gigabytes.
MAX_ROUNDS = 100_000

#: Samples per profile (`judge --samples`): self-consistency settles within tens; each is
#: a judge of its own over every pair.
MAX_SAMPLES = 100

#: Requests in flight to one server.
MAX_CONCURRENCY = 1_024

#: A request's timeout or the pause between batch checks, in seconds (one day): beyond,
#: the clock's arithmetic overflows (``socket.settimeout``, ``time.sleep``).
MAX_SECONDS = 86_400.0

#: A GGUF model's context in tokens (llama.cpp takes 32-bit counts; the longest models
#: today read 10 million).
MAX_CONTEXT = 2**24

#: CPU threads for a GGUF model's server.
MAX_THREADS = 1_024

#: A rating given to an anchor model (the Elo scale centres at 1,000).
MAX_RATING = 1e6


#: Dollars per million tokens: far above any model's price, short of a typo's 1e300.
MAX_PRICE = 1_000_000.0
