"""A malformed base URL is one line where it comes in: a usage error (exit 2) on the
command line, a one-line refusal from a profile's file, the API or the Settings dialog;
never httpx's "unexpected InvalidURL" from the first request (issue 29, item 15)."""

from __future__ import annotations

from pathlib import Path

import pytest

from desktop import api
from desktop.adapters.config import config_dir
from tests.helpers import new_project, write_jsonl
from tests.hostile.conftest import Hostile, fingerprint

MALFORMED = [
    "::::",
    "http://[::1",
    "http://h:99999/v1",
    "http://h:-1/v1",
    "http://h:x/v1",
    "ftp://h/v1",
    "http://",
    "h/v1",
    "http://a b/v1",
    "http://h\x00/v1",
    "http://h/v1\n",
    "",
]


def _project(tmp_path: Path) -> Path:
    project = new_project(tmp_path)
    rows = [{"prompt": "q", "response_a": "a", "response_b": "b"}]
    assert (
        Hostile("setup").cli("import", project, write_jsonl(tmp_path / "a.jsonl", rows)).code == 0
    )
    return project


@pytest.mark.parametrize("url", MALFORMED, ids=repr)
def test_a_malformed_base_url_is_a_usage_error(tmp_path: Path, hostile: Hostile, url: str) -> None:
    project = _project(tmp_path)
    before = fingerprint(project)
    for words in (
        ("judge", project, "--rubric", "pair-v2", "--model", "m"),
        ("batch", "submit", project, "--rubric", "pair-v2", "--model", "m"),
        ("profile", "add", "x", "--model", "m"),
    ):
        run = hostile.main(*words, "--base-url", url)
        hostile.refused(run, code=2, says="argument --base-url:", project=project, before=before)
        assert "InvalidURL" not in run.stderr
    assert not (config_dir() / "profiles.toml").exists()


def test_a_password_in_a_malformed_url_is_not_shown(tmp_path: Path, hostile: Hostile) -> None:
    run = hostile.main("profile", "add", "x", "--model", "m", "--base-url", "http://u:s3cret@h:0/")
    hostile.refused(run, code=2, says="argument --base-url:")
    assert "s3cret" not in run.stderr


@pytest.mark.parametrize("url", ["::::", "http://[::1", "http://h:99999/v1"])
def test_a_profile_file_with_a_malformed_url(tmp_path: Path, hostile: Hostile, url: str) -> None:
    project = _project(tmp_path)
    before = fingerprint(project)
    (config_dir() / "profiles.toml").write_text(
        f'[profiles.bad]\nmodel = "m"\nbase_url = "{url}"\nneeds_key = false\n'
    )
    run = hostile.main("judge", project, "--rubric", "pair-v2", "--profile", "bad")
    hostile.refused(run, says=("profile bad", "is no server's"), project=project, before=before)


@pytest.mark.parametrize("url", ["::::", "http://[::1"])
def test_the_api_refuses_a_malformed_url(tmp_path: Path, url: str) -> None:
    with pytest.raises(api.TiebreakError, match="is no server's"):
        api.profile(base_url=url, model="m")
    with pytest.raises(api.TiebreakError, match="is no server's"):
        from desktop.adapters.keys import store_profile

        store_profile(api.ModelProfile(name="x", model="m", base_url=url))
    assert not (config_dir() / "profiles.toml").exists()
