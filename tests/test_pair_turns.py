"""What a pair is laid out as (domain/pair_turns.py), kept for the pairs shown and read
ahead: always the layout of the sides and turn asked for, whichever were kept before, and
a project read ahead of the window (services/session.py ``read_ahead``) changes nothing a
reviewer sees, even where its file cannot be read."""

from __future__ import annotations

from pathlib import Path

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import get_pair
from desktop.domain.conversations import Message, messages
from desktop.domain.pair_turns import SINGLE, pair_turns
from desktop.domain.pairs import PairContent
from desktop.domain.transcript import transcript
from desktop.services.app_settings import AppSettings
from desktop.services.importing import import_file
from desktop.services.session import ReviewSession
from tests.helpers import new_project, write_jsonl
from tests.trajectory_data import openai_run

U1, U2, U3 = (Message("user", f"Question {k}?") for k in (1, 2, 3))
A1, A2, A3 = (Message("assistant", f"Answer {k}.") for k in (1, 2, 3))
B1, B2, B3 = (Message("assistant", f"Reply {k}.") for k in (1, 2, 3))


def _pair(turn: int, a: tuple[Message, ...], b: tuple[Message, ...]) -> PairContent:
    request, answer_a, answer_b = a[2 * turn - 2], a[2 * turn - 1], b[2 * turn - 1]
    return PairContent(
        request.content,
        answer_a.content,
        answer_b.content,
        conversation_a=a,
        conversation_b=b,
        turn=turn,
    )


def test_each_turn_and_each_pair_is_laid_out_as_itself_whatever_was_kept() -> None:
    a, b = (U1, A1, U2, A2, U3, A3), (U1, B1, U2, B2, U3, B3)
    for _ in range(2):  # the second time round, every layout is a kept one
        for turn in (1, 2, 3):
            found = pair_turns(_pair(turn, a, b)).transcript
            assert found is not None and (found.turn, found.turns) == (turn, 3)
            assert (len(found.before), len(found.after)) == (turn - 1, 3 - turn)
    # equal sides that are other objects find the same layout; other sides their own
    copy = pair_turns(_pair(2, tuple(a), tuple(list(b))))
    assert copy is pair_turns(_pair(2, a, b))
    other = pair_turns(_pair(2, (U1, B1, U2, A2, U3, A3), b)).transcript
    assert other is not None and other.before[0].rows[1].a == "Reply 1."
    assert pair_turns(PairContent("Name a prime.", "7", "Eleven.")) is SINGLE


def test_two_runs_are_laid_out_as_steps_and_a_pair_that_no_longer_compares_as_one_turn() -> None:
    run_a = messages(openai_run("Sunny, 21 °C.", calls=2), "conversation_a")
    run_b = messages(openai_run("Rain, 12 °C."), "conversation_b")
    pair = PairContent("task", "Sunny, 21 °C.", "Rain, 12 °C.", conversation_a=run_a,
                conversation_b=run_b, turn=1)  # fmt: skip
    runs = pair_turns(pair).runs
    assert runs is not None and pair_turns(pair).transcript is None
    broken = PairContent("?", "x", "y", conversation_a=(U1, A1), conversation_b=(U2, B1), turn=1)
    assert pair_turns(broken) is SINGLE  # the user turns differ: nothing to line up


def _conversation_project(tmp_path: Path, turns: int) -> Path:
    rows = [
        {
            "id": f"chat-{k}",
            "messages_a": [
                m for t in range(turns) for m in ({"role": "user", "content": f"Q{t}"},
                                                  {"role": "assistant", "content": f"A{k}.{t}"})
            ],
            "messages_b": [
                m for t in range(turns) for m in ({"role": "user", "content": f"Q{t}"},
                                                  {"role": "assistant", "content": f"B{k}.{t}"})
            ],
        }
        for k in range(3)
    ]  # fmt: skip
    project = new_project(tmp_path)
    with open_project(project) as store:
        import_file(store, write_jsonl(tmp_path / "chats.jsonl", rows))
    return project


def test_reading_ahead_shows_each_pair_as_reading_it_alone_does(tmp_path: Path) -> None:
    project = _conversation_project(tmp_path, 50)
    session = ReviewSession.open(project, AppSettings(profile="local"))
    try:
        session.read_ahead([2, 3, 999])  # (a pair no longer in the project: none to read)
        for pair_id in (2, 3, 1):
            shown = session.load_pair(pair_id)
            assert shown is not None
            turns = pair_turns(shown).transcript
            assert turns == transcript(*shown.conversations(), shown.compared_turn)
            assert turns is not None and turns.turns == 50
            assert turns.before[-1].rows[-1].a == f"A{pair_id - 1}.48"
        with open_project(project) as store:
            assert get_pair(store, 2) == session.load_pair(2)
    finally:
        session.close()


def test_reading_ahead_a_project_that_cannot_be_read_says_nothing_and_shows_what_it_did(
    tmp_path: Path,
) -> None:
    project = _conversation_project(tmp_path, 3)
    session = ReviewSession.open(project, AppSettings(profile="local"))
    shown = session.load_pair(1)
    session.store.conn.close()  # as a connection that fails under the window
    session.read_ahead([2])  # only a head start: the error is the next pair's to say
    assert session.current == shown
