"""One external id, one pair: a record whose id is already taken by different text is an
error that names both places, never a silent skip or merge.

Checked per batch, before the batch is written: against the pairs already in the project
(including those this import added from earlier batches and files) and against the
records earlier in the same batch. The earlier record of the same import is found again
by reading its file once more, on the error path only, so no memory is held per record.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from desktop.adapters.store.pairs import PairRow, identities_for_keys, last_id
from desktop.adapters.store.project import ProjectStore
from desktop.domain.errors import ImportDataError
from desktop.domain.pairs import identity_clash

# Finds where an external id first appeared in what this import has read so far.
FindEarlier = Callable[[str], str | None]


class IdCheck:
    def __init__(self, store: ProjectStore, find_earlier: FindEarlier) -> None:
        self.conn, self.project, self.find_earlier = store.conn, store.path, find_earlier
        self.first_new_id = last_id(store) + 1  # pairs from here on were added by this import

    def check(self, batch: Sequence[tuple[str, PairRow]]) -> None:
        """``batch``: (where, prepared pairs row) in file order."""
        keyed = [(where, row, row.external_id) for where, row in batch if row.external_id]
        if not keyed:
            return
        known = identities_for_keys(self.conn, {row.pair_key for _, row, _ in keyed})
        seen: dict[str, tuple[str, PairRow]] = {}
        for where, row, external_id in keyed:
            key = row.pair_key
            if key in seen:
                other, first = seen[key]
                theirs = first._asdict()
            elif key in known:
                pid, theirs = known[key]
                other = self._place(pid, external_id)
                seen[key] = (where, row)
            else:
                seen[key] = (where, row)
                continue
            field = identity_clash(theirs, row._asdict())
            if field is not None:
                raise ImportDataError(
                    f"{where}: id {row.external_id!r} is already used by {other}, which has a"
                    f" different {field}; nothing was imported"
                )

    def _place(self, pid: int, external_id: str) -> str:
        if pid >= self.first_new_id:
            found = self.find_earlier(external_id)
            if found is not None:
                return found
        return f"pair #{pid} of {self.project}"
