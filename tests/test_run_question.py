"""A big judge run is asked about before anything is sent (issue 30 item 5): above the
Settings threshold (``ask_above``, 200 requests unless changed) `tiebreak judge` asks on a
terminal, refuses in one line without one, and runs with --yes; the question says how
many requests and, where the profile has prices, what they will cost."""

from __future__ import annotations

import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.adapters.profiles_file import save_profile
from desktop.domain.profiles import ModelProfile
from desktop.services.app_settings import AppSettings, save_settings
from tests.helpers import table_digest
from tests.judging_helpers import JUST_EVAL_ANSWER, MODEL, generations, project
from tests.openai_server import OpenAIServer

PAIRS = 250  # above the 200 asked about by default


@pytest.fixture
def server():
    with OpenAIServer(answer=JUST_EVAL_ANSWER) as s:
        yield s


def judge(path: Path, *args: str, answer: str | None = None) -> subprocess.CompletedProcess[str]:
    """`tiebreak judge`, its stdin no terminal, or a terminal that types ``answer``."""
    command = [sys.executable, "-m", "desktop", "judge", str(path), "--rubric", "just-eval"]
    if answer is None:
        return subprocess.run(
            [*command, *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
            timeout=120,
        )  # fmt: skip
    main, other = pty.openpty()
    os.write(main, answer.encode() + b"\n")
    try:
        return subprocess.run(
            [*command, *args], stdin=other, capture_output=True, text=True, timeout=120
        )
    finally:
        os.close(main)
        os.close(other)


def ad_hoc(server: OpenAIServer) -> list[str]:
    return ["--base-url", server.base_url, "--model", MODEL]


def test_without_a_terminal_a_big_run_is_refused_in_one_line(tmp_path, server) -> None:
    path = project(tmp_path, PAIRS)
    before = table_digest(path)
    proc = judge(path, *ad_hoc(server))
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "250 requests to test-model (250 pairs, one order)" in lines[0]
    assert "more than the 200 asked about first" in lines[0] and "--yes" in lines[0]
    assert "nothing was sent" in lines[0] and "Traceback" not in proc.stderr
    assert "no price is set for command-line, so no cost estimate" in lines[0]
    assert generations(server) == [] and table_digest(path) == before


def test_yes_sends_them(tmp_path, server) -> None:
    path = project(tmp_path, PAIRS)
    proc = judge(path, *ad_hoc(server), "--yes")
    assert proc.returncode == 0, proc.stderr
    assert len(generations(server)) == PAIRS


def test_a_terminal_is_asked_and_no_sends_nothing(tmp_path, server) -> None:
    path = project(tmp_path, PAIRS)
    before = table_digest(path)
    proc = judge(path, *ad_hoc(server), answer="n")
    assert proc.returncode == 1
    assert "This run will send 250 requests to test-model" in proc.stderr
    assert proc.stderr.strip().endswith("tiebreak: error: nothing was sent")
    assert generations(server) == [] and table_digest(path) == before
    proc = judge(path, *ad_hoc(server), answer="y")
    assert proc.returncode == 0, proc.stderr
    assert len(generations(server)) == PAIRS


def test_the_threshold_is_the_settings_one(tmp_path, server) -> None:
    small = project(tmp_path, 3, "small.tiebreak")
    save_settings(AppSettings(ask_above=0))  # 0: every run is asked about
    proc = judge(small, *ad_hoc(server))
    assert proc.returncode == 1 and "3 requests to test-model" in proc.stderr
    assert "more than the 0 asked about first" in proc.stderr
    save_settings(AppSettings(ask_above=PAIRS))  # not above: no question
    proc = judge(project(tmp_path, PAIRS), *ad_hoc(server))
    assert proc.returncode == 0, proc.stderr
    assert len(generations(server)) == PAIRS


def test_both_orders_and_samples_count_every_request(tmp_path, server) -> None:
    path = project(tmp_path, 60)  # 60 pairs x 2 orders x 2 samples = 240 requests
    save_profile(ModelProfile(name="t", model=MODEL, base_url=server.base_url, needs_key=False))
    proc = judge(path, "--profile", "t", "--swap", "--samples", "2")
    assert proc.returncode == 1
    assert "240 requests to 2 judges (60 pairs, both orders)" in proc.stderr


def test_a_priced_profile_is_told_the_cost(tmp_path, server) -> None:
    path = project(tmp_path, PAIRS)
    priced = ModelProfile(
        name="paid", model=MODEL, base_url=server.base_url, needs_key=False,
        price_in=2.5, price_out=10.0,
    )  # fmt: skip
    save_profile(priced)
    refused = judge(path, "--profile", "paid")
    amount = float(refused.stderr.split("about $")[1].split()[0])
    assert "at the profile's prices" in refused.stderr
    assert judge(path, "--profile", "paid", "--yes").returncode == 0
    sent = [r.json for r in generations(server)]
    chars = sum(len(m["content"]) for body in sent for m in body["messages"])
    # Every prompt's tokens (four characters a token) and answers of max_tokens each.
    expected = (chars / 4 * 2.5 + PAIRS * sent[0]["max_tokens"] * 10.0) / 1e6
    assert amount == pytest.approx(expected, rel=0.02, abs=0.01)


def test_batch_submit_asks_alike(tmp_path, server) -> None:
    path = project(tmp_path, PAIRS)
    save_profile(ModelProfile(name="t", model=MODEL, base_url=server.base_url, needs_key=False))
    proc = subprocess.run(
        [sys.executable, "-m", "desktop", "batch", "submit", str(path), "--rubric", "just-eval",
         "--profile", "t"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
    assert "250 requests to test-model" in proc.stderr and "--yes" in proc.stderr
    assert server.requests == []  # nothing uploaded


def test_prices_are_kept_and_bad_ones_refused_in_one_line(capsys) -> None:
    from desktop.adapters.config import config_dir
    from desktop.adapters.profiles_file import get_profile
    from desktop.cli.main import main

    add = ["profile", "add", "gpt", "--base-url", "https://api.openai.com/v1", "--model", "m"]
    with pytest.raises(SystemExit) as exit_:
        main([*add, "--price-in", "-1"])
    assert (
        exit_.value.code == 2
        and "--price-in: must be from 0 to 1,000,000, not -1" in capsys.readouterr().err
    )
    assert main([*add, "--price-in", "0.15", "--price-out", "0.6"]) == 0
    assert (get_profile("gpt").price_in, get_profile("gpt").price_out) == (0.15, 0.6)
    capsys.readouterr()
    assert main(["profile", "add", "q", "--gguf", "x.gguf", "--price-in", "1"]) == 1
    assert "costs nothing" in capsys.readouterr().err
    (config_dir() / "profiles.toml").write_text('[profiles.x]\nmodel = "m"\nprice_in = "cheap"\n')
    assert main(["judge", "p.tiebreak", "--rubric", "just-eval", "--profile", "x"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "tiebreak: error: profile x: price_in must be dollars per million tokens, 0 or more,"
        " not 'cheap'"
    ]
