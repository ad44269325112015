"""Rubric files: the built-ins load, bad files give one line naming file and key, and a
rubric survives dump and load unchanged. Also the catalog of built-in and user rubrics."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from desktop import resources
from desktop.adapters.rubric_files import dump_rubric, load_rubric, rubric_from_text
from desktop.adapters.store import open_project
from desktop.domain.errors import RubricError
from desktop.domain.rubric import ONE_VERDICT, AnswerFormat, AnswerKind, Decoding, Message, Rubric
from desktop.domain.template_import import escape_literal
from desktop.resources import prompts_dir
from desktop.services import project_rubrics, rubric_catalog
from tests.helpers import new_project

BUILTINS = {
    "href-four": (("precision", "correctness", "format", "overall"), "comma-list", ("reference",)),
    "href-four-corrected": (
        ("precision", "correctness", "format", "overall"),
        "comma-list",
        ("reference",),
    ),
    "href-overall": (("overall",), "single", ("reference",)),
    "href-correctness": (("correctness",), "single", ("reference",)),
    "just-eval": (
        ("engagement", "clarity", "helpfulness", "factuality", "depth", "safety"),
        "json-choices",
        (),
    ),
    "text-grounded": (("overall",), "json-choice", ("source",)),
    "pair-v2": (("overall",), "bracketed", ()),
    "trajectory": (("task_completion", "actions", "efficiency", "overall"), "json-choices", ()),
    "pair-v2-multi-turn": (("overall",), "bracketed", ()),
    "pair-math-v1": (("overall",), "bracketed", ("reference",)),
    "pair-math-v1-multi-turn": (("overall",), "bracketed", ("reference",)),
}

GOOD = """\
name = "mine"
title = "Mine"
description = "A test rubric."
requires = ["reference"]
dimensions = ["overall"]

[answer]
kind = "single"

[decoding]
temperature = 0
max_tokens = 8

[[messages]]
role = "user"
content = '''
Q: {{ instruction }}
A: {{ response_a }}
B: {{ response_b }}
Ref: {{ reference }}'''
"""


def test_every_builtin_file_loads_with_its_declared_shape() -> None:
    files = {p.stem: p for p in prompts_dir().glob("*.toml")}
    assert set(files) == set(BUILTINS)
    for name, (dims, kind, requires) in BUILTINS.items():
        rubric = load_rubric(files[name])  # templates checked here, not at each start
        assert rubric == rubric_catalog.get(name)
        assert rubric.name == name
        assert rubric.dimensions == dims
        assert rubric.answer.kind.value == kind
        assert rubric.requires == requires
        assert rubric.decoding.temperature == 0.0
        tokens = {"bracketed": 2048}.get(kind, 512 if kind.startswith("json") else 16)
        assert rubric.decoding.max_tokens == tokens  # FastChat's judge: 2048
        # a published prompt kept as published, or (the trajectory judge) one of our own
        assert (
            "faithful" in rubric.description
            or name.endswith("corrected")
            or "not a published prompt" in rubric.description
        )


def test_builtin_answer_keys() -> None:
    just_eval = load_rubric(prompts_dir() / "just-eval.toml").answer
    assert (just_eval.choices_key, just_eval.reason_key) == ("choices", "rationale")
    grounded = load_rubric(prompts_dir() / "text-grounded.toml").answer
    assert (grounded.choice_key, grounded.reason_key) == ("choice", "reason")


def test_builtin_descriptions_name_the_seeds_slips() -> None:
    four = load_rubric(prompts_dir() / "href-four.toml").description
    assert "A for precision" in four and "B, tie, tie, A" in four and "B’s 5" in four
    assert "You are a helpful assistant that helps us rate" in four  # the filled system slot
    assert "B’s 5" in load_rubric(prompts_dir() / "href-correctness.toml").description
    assert "precision" in load_rubric(prompts_dir() / "href-correctness.toml").description
    assert "AK47â€™s" in load_rubric(prompts_dir() / "href-overall.toml").description


def test_builtin_files_use_literal_strings_for_prompt_text() -> None:
    for path in prompts_dir().glob("*.toml"):
        text = path.read_text(encoding="utf-8")
        assert "content = '''" in text, path.name
        assert "\\n" not in text.split("[[messages]]", 1)[1], path.name  # no escapes


@pytest.mark.parametrize("name", sorted(BUILTINS))
def test_builtin_round_trip(name: str) -> None:
    rubric = load_rubric(prompts_dir() / f"{name}.toml")
    text = dump_rubric(rubric)
    again = rubric_from_text(text, origin="dumped")
    assert again == rubric
    assert again.content_hash == rubric.content_hash
    assert sorted(tomllib.loads(text)) == sorted(rubric.to_dict())  # the file's keys


_text = st.text(st.characters(blacklist_categories=("Cs",)))
_name = st.from_regex(r"[a-z][a-z0-9_-]{0,20}", fullmatch=True)
_variable = st.sampled_from(["instruction", "response_a", "response_b", "reference", "source"])


@st.composite
def _templates(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.one_of(_text.map(escape_literal), _variable.map("{{ %s }}".__mod__))))
    return "".join(parts)


@st.composite
def _rubrics(draw: st.DrawFn) -> Rubric:
    kind = draw(st.sampled_from(list(AnswerKind)))
    single = kind in ONE_VERDICT
    dims = draw(st.lists(_name, min_size=1, max_size=1 if single else 5, unique=True))
    reason = draw(st.none() | _name) if kind.value.startswith("json") else None
    fewshot = draw(st.none() | _text)
    messages = [Message(draw(st.sampled_from(["system", "user", "assistant"])), draw(_templates()))]
    if fewshot is not None:
        messages.append(Message("user", draw(_templates()) + "{{ fewshot }}"))
    return Rubric(
        name=draw(_name),
        title=draw(_text.filter(str.strip)),
        description=draw(_text),
        dimensions=tuple(dims),
        answer=AnswerFormat(
            kind=kind,
            choices_key=draw(_name) if kind is AnswerKind.JSON_CHOICES else "choices",
            choice_key=draw(_name) if kind is AnswerKind.JSON_CHOICE else "choice",
            reason_key=reason,
        ),
        messages=tuple(messages),
        requires=tuple(draw(st.lists(st.sampled_from(["reference", "source"]), unique=True))),
        fewshot=fewshot,
        decoding=Decoding(
            temperature=draw(st.floats(0, 2)), max_tokens=draw(st.integers(1, 100_000))
        ),
    )


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])
@given(rubric=_rubrics())
def test_any_rubric_round_trips(rubric: Rubric) -> None:
    assert rubric_from_text(dump_rubric(rubric), origin="dumped") == rubric


def test_windows_line_breaks_survive_a_round_trip() -> None:
    """A multi-line TOML string keeps only bare newlines; found by the test above."""
    rubric = Rubric(
        name="crlf",
        title="CRLF",
        description="one\r\ntwo",
        dimensions=("overall",),
        answer=AnswerFormat(kind=AnswerKind.SINGLE),
        messages=(Message("user", "Which is better?\r\n{{ instruction }}"),),
    )
    assert rubric_from_text(dump_rubric(rubric), origin="dumped") == rubric
    unix = dataclasses.replace(rubric, description="one\ntwo", messages=(Message("user", "?"),))
    assert '"""\none\ntwo"""' in dump_rubric(unix)  # a rubric without them stays readable


def test_a_good_user_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(GOOD, encoding="utf-8")
    rubric = load_rubric(path)
    assert rubric.decoding == Decoding(temperature=0.0, max_tokens=8)
    assert isinstance(rubric.decoding.temperature, float)  # "0" in the file, same hash as 0.0
    assert rubric.requires == ("reference",)


def _edit(old: str, new: str) -> str:
    assert old in GOOD
    return GOOD.replace(old, new, 1)


BAD = [
    ("syntax", _edit('title = "Mine"', 'title = "Mine'), "not valid TOML"),
    ("no name", _edit('name = "mine"\n', ""), "missing key 'name'"),
    ("name type", _edit('name = "mine"', "name = 3"), "key 'name' must be a non-empty string"),
    ("bad name", _edit('name = "mine"', 'name = "my rubric"'), "rubric name 'my rubric'"),
    ("no dims", _edit('dimensions = ["overall"]\n', ""), "missing key 'dimensions'"),
    (
        "dims type",
        _edit('dimensions = ["overall"]', 'dimensions = "overall"'),
        "key 'dimensions' must be a list of strings",
    ),
    (
        "dims items",
        _edit('dimensions = ["overall"]', "dimensions = [1]"),
        "key 'dimensions' must be a list of strings",
    ),
    ("requires", _edit('requires = ["reference"]', 'requires = ["notes"]'), "'notes'"),
    ("no answer", _edit('[answer]\nkind = "single"\n', ""), "missing table \\[answer\\]"),
    ("answer type", _edit('[answer]\nkind = "single"\n', 'answer = "single"\n'), "'answer'"),
    (
        "kind",
        _edit('kind = "single"', 'kind = "stars"'),
        "key 'answer.kind' must be one of comma-list, single, json-choices, json-choice",
    ),
    ("no kind", _edit('kind = "single"', 'reason_key = "why"'), "missing key 'answer.kind'"),
    ("answer key", _edit('kind = "single"', 'kind = "single"\nchoise_key = "c"'), "choise_key"),
    (
        "kind vs dims",
        _edit('dimensions = ["overall"]', 'dimensions = ["a", "b"]'),
        "gives one verdict, but 2 dimensions",
    ),
    (
        "temperature",
        _edit("temperature = 0", 'temperature = "0"'),
        "key 'decoding.temperature' must be a number",
    ),
    (
        "max_tokens",
        _edit("max_tokens = 8", "max_tokens = 0"),
        "key 'decoding.max_tokens' must be a positive integer",
    ),
    ("unknown top key", _edit('title = "Mine"', 'title = "Mine"\ndimension = []'), "'dimension'"),
    ("no messages", GOOD.split("[[messages]]")[0], "missing \\[\\[messages\\]\\]"),
    (
        "messages type",
        GOOD.split("[[messages]]")[0].replace('title = "Mine"', 'title = "Mine"\nmessages = "hi"'),
        "key 'messages' must be one or more \\[\\[messages\\]\\] tables",
    ),
    ("role", _edit('role = "user"', 'role = "judge"'), "key 'messages\\[1\\].role'"),
    ("content", _edit("content = '''", "content = 5\nc = '''"), "messages\\[1\\]"),
    (
        "template syntax",
        _edit("Q: {{ instruction }}", "Q: {{ instruction }"),
        "key 'messages\\[1\\].content': template syntax error on line 1",
    ),
    (
        "unknown variable",
        _edit("{{ response_a }}", "{{ respnse_a }}"),
        "key 'messages\\[1\\].content': unknown template variable 'respnse_a'",
    ),
    (
        "fewshot unused",
        _edit('dimensions = ["overall"]', 'dimensions = ["overall"]\nfewshot = "Example"'),
        "key 'fewshot' is set, but no message uses",
    ),
    (
        "fewshot type",
        _edit('dimensions = ["overall"]', 'dimensions = ["overall"]\nfewshot = 1'),
        "'fewshot'",
    ),
]


@pytest.mark.parametrize(("label", "text", "error"), BAD, ids=[b[0] for b in BAD])
def test_a_bad_file_is_one_line_naming_file_and_key(
    tmp_path: Path, label: str, text: str, error: str
) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RubricError, match=error) as info:
        load_rubric(path)
    message = str(info.value)
    assert message.startswith(f"{path}: "), message
    assert "\n" not in message


def test_not_utf8_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "latin.toml"
    path.write_bytes(GOOD.replace("A test", "Caf\xe9").encode("latin-1"))
    with pytest.raises(RubricError, match=r"latin.toml: not UTF-8 text"):
        load_rubric(path)
    with pytest.raises(RubricError, match=r"gone.toml: no such file"):
        load_rubric(tmp_path / "gone.toml")


def test_text_from_a_project_names_its_origin() -> None:
    with pytest.raises(RubricError, match=r"^p.tiebreak rubric mine: missing key 'title'"):
        rubric_from_text(_edit('title = "Mine"\n', ""), origin="p.tiebreak rubric mine")


# ---- catalog --------------------------------------------------------------------------------


def test_catalog_lists_builtins_in_order() -> None:
    names = [r.name for r in rubric_catalog.list_rubrics()]
    assert names == list(resources.BUILTIN_RUBRICS)
    assert rubric_catalog.get("just-eval").dimensions[0] == "engagement"
    assert rubric_catalog.get("href-four").name == "href-four"


def test_catalog_unknown_name_lists_known() -> None:
    with pytest.raises(RubricError, match=r"unknown rubric 'nope' \(known: href-four, "):
        rubric_catalog.get("nope")


def test_catalog_with_a_user_folder(tmp_path: Path) -> None:
    (tmp_path / "mine.toml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "broken.toml").write_text("name = ", encoding="utf-8")
    (tmp_path / "href-four.toml").write_text(
        _edit('name = "mine"', 'name = "href-four"'), encoding="utf-8"
    )
    catalog = rubric_catalog.scan(tmp_path)
    assert catalog.names == [*resources.BUILTIN_RUBRICS, "mine"]
    assert catalog.origins["href-four"].parent == prompts_dir()  # a built-in keeps its name
    assert len(catalog.problems) == 2
    assert any("already used by" in p for p in catalog.problems)
    assert rubric_catalog.get("mine", tmp_path).title == "Mine"
    with pytest.raises(RubricError, match=r"broken\.toml: not valid TOML"):
        rubric_catalog.get("broken", tmp_path)


def test_catalog_sees_an_edited_user_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(GOOD, encoding="utf-8")
    assert rubric_catalog.get("mine", tmp_path).title == "Mine"
    path.write_text(_edit('title = "Mine"', 'title = "Mine, edited"'), encoding="utf-8")
    assert rubric_catalog.get("mine", tmp_path).title == "Mine, edited"


def test_a_dimension_name_that_cannot_be_a_column_is_refused(tmp_path: Path) -> None:
    text = (prompts_dir() / "href-overall.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(text.replace('dimensions = ["overall"]', 'dimensions = ["over all|x"]'))
    with pytest.raises(RubricError, match=re.escape("dimension 'over all|x' must be letters")):
        load_rubric(bad)


def test_the_index_agrees_with_loading_every_shipped_rubric(tmp_path: Path) -> None:
    """A project opens with names and dimensions read without loading rubrics: a shipped
    file's name must be its rubric's, and its dimensions the loaded rubric's."""
    project = new_project(tmp_path)
    with open_project(project) as store:
        loaded = rubric_catalog.list_rubrics()
        assert [r.name for r in loaded] == [p.stem for p in resources.builtin_rubric_files()]
        assert project_rubrics.rubric_choices(store) == [r.name for r in loaded]
        for rubric in loaded:
            assert project_rubrics.dimensions_for(store, rubric.name) == rubric.dimensions
