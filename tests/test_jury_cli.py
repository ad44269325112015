"""A jury from the command line, against the project's own test server: several profiles
asked in one job (each profile's answers stored as its model's), one profile sampled N
times (N answers, kept as a majority jury whose confidence is the share behind it), and
judges already in the project kept as a named jury, which then shows wherever a judge is
chosen: stats (with its jurors' Fleiss kappa, equal to statsmodels'), export, the queue."""

from __future__ import annotations

import csv
import itertools
import json
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats import inter_rater

from desktop.adapters.store import open_project
from desktop.adapters.store.pairs import find_pair
from desktop.cli.main import main
from desktop.domain.verdicts import Verdict
from desktop.services.importing import import_file
from desktop.services.overrides import override
from tests.helpers import new_project, table_digest, write_jsonl
from tests.openai_server import GENERATION_PATHS, OpenAIServer, Reply

N = 8
RUBRIC = "href-overall"
REVIEWS = {1: "B", 2: "A", 3: "A", 4: "B", 5: "tie", 6: "A"}  # Ada's verdicts on overall


def _number(data: dict) -> int:
    return int(re.search(r"question (\d+)", json.dumps(data)).group(1))


def _mixed(data: dict) -> str:
    """Beta's judge: B on odd questions, A on even ones."""
    return "B" if _number(data) % 2 else "A"


class Cycle:
    """Gamma's judge, sampled: each request takes the next answer of a fixed cycle, so the
    samples of one pair can differ."""

    def __init__(self, answers: tuple[str, ...]) -> None:
        self.answers = itertools.cycle(answers)
        self.lock = threading.Lock()

    def __call__(self, data: dict) -> str:
        with self.lock:
            return next(self.answers)


@pytest.fixture
def servers():
    with (
        OpenAIServer(answer="A") as alpha,
        OpenAIServer(responder=_mixed) as beta,
        OpenAIServer(responder=Cycle(("A", "B", "A", "B", "B"))) as gamma,
    ):
        for name, server in (("alpha", alpha), ("beta", beta), ("gamma", gamma)):
            args = ["profile", "add", name, "--base-url", server.base_url]
            args += ["--model", f"judge-{name}", "--no-key", "--concurrency", "1"]
            assert main(args) == 0
        yield alpha, beta, gamma


@pytest.fixture
def project(tmp_path: Path) -> Path:
    path = new_project(tmp_path)
    rows = [
        {
            "id": f"p{i}",
            "instruction": f"question {i}",
            "response_a": f"a{i}",
            "response_b": f"b{i}",
            "reference": f"r{i}",
        }
        for i in range(1, N + 1)
    ]
    with open_project(path) as store:
        import_file(store, write_jsonl(path.parent / "pairs.jsonl", rows))
    return path


def run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, list[str]]:
    capsys.readouterr()
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err.strip().splitlines()


def answers(project: Path) -> dict[str, dict[int, str]]:
    """Each judge's verdict on overall per pair, as stored."""
    got: dict[str, dict[int, str]] = {}
    with open_project(project, readonly=True) as store:
        for judge, pair, verdicts in store.conn.execute(
            "SELECT judge_model, pair_id, verdicts FROM judge_results WHERE rubric_name = ?",
            [RUBRIC],
        ):
            got.setdefault(judge, {})[pair] = json.loads(verdicts)["overall"]
    return got


def generations(server: OpenAIServer) -> list:
    return [r for r in server.requests if r.path in GENERATION_PATHS]


def review(project: Path) -> None:
    with open_project(project) as store:
        for i, verdict in REVIEWS.items():
            override(
                store,
                find_pair(store, f"p{i}"),
                rubric=RUBRIC,
                dimension="overall",
                verdict=Verdict(verdict),
                reviewer="ada",
                note=None,
                mode="cli",
            )


def exported(project: Path, out: Path, capsys, judge: str) -> list[dict[str, str]]:
    code, _, err = run(capsys, "export", project, out, "--judge-model", judge)
    assert code == 0, err
    with out.open(newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def test_several_profiles_in_one_job_each_stored_as_its_judge(
    project: Path, servers, capsys
) -> None:
    alpha, beta, _ = servers
    code, out, err = run(
        capsys, "judge", project, "--rubric", RUBRIC,
        "--profile", "alpha", "--profile", "beta", "--jury", "panel",
    )  # fmt: skip
    assert code == 0, err
    assert f"{2 * N} ok, 0 parse failures, 0 errors, 0 already judged" in out
    assert "judges judge-alpha, judge-beta" in out
    assert "jury 'panel' (majority of judge-alpha, judge-beta)" in out
    stored = answers(project)
    assert stored["judge-alpha"] == {i: "A" for i in range(1, N + 1)}
    assert stored["judge-beta"] == {i: "B" if i % 2 else "A" for i in range(1, N + 1)}
    asked_alpha, asked_beta = generations(alpha), generations(beta)
    assert len(asked_alpha) == len(asked_beta) == N
    # One job: both servers asked at once, not one profile's pairs after the other's.
    assert asked_beta[0].received_monotonic < asked_alpha[-1].received_monotonic
    assert asked_alpha[0].received_monotonic < asked_beta[-1].received_monotonic
    code, out, _ = run(
        capsys, "judge", project, "--rubric", RUBRIC, "--profile", "alpha", "--profile", "beta"
    )
    assert code == 0 and f"0 ok, 0 parse failures, 0 errors, {2 * N} already judged" in out
    assert len(generations(alpha)) == N  # nothing asked twice


def test_a_jury_shows_wherever_a_judge_is_chosen(
    project: Path, servers, capsys, tmp_path: Path
) -> None:
    code, _, err = run(
        capsys, "judge", project, "--rubric", RUBRIC, "--profile", "alpha", "--profile", "beta"
    )
    assert code == 0, err
    code, _, err = run(capsys, "judge", project, "--rubric", RUBRIC, "--profile", "gamma")
    assert code == 0, err
    code, out, err = run(
        capsys, "jury", "add", project, "trio",
        "--judge", "judge-alpha", "--judge", "judge-beta", "--judge", "judge-gamma",
    )  # fmt: skip
    assert code == 0, err
    assert "jury 'trio' of rubric href-overall: majority of judge-alpha, judge-beta" in out
    code, out, _ = run(capsys, "jury", "list", project, "--json")
    assert json.loads(out) == [
        {
            "rubric": RUBRIC,
            "name": "trio",
            "jurors": ["judge-alpha", "judge-beta", "judge-gamma"],
            "combine": "majority",
            "created_at": json.loads(out)[0]["created_at"],
        }
    ]
    review(project)
    stored = answers(project)
    jurors = ("judge-alpha", "judge-beta", "judge-gamma")
    majority = {}
    for i in range(1, N + 1):
        votes = [stored[j][i] for j in jurors]
        majority[i] = max(set(votes), key=votes.count)

    rows = exported(project, tmp_path / "out.csv", capsys, "trio")
    assert {r["judge_model"] for r in rows} == {"trio"}
    assert [r["overall_model"] for r in rows] == [majority[i] for i in range(1, N + 1)]
    shares = [[stored[j][i] for j in jurors].count(majority[i]) / 3 for i in range(1, N + 1)]
    assert [float(r["overall_confidence"]) for r in rows] == pytest.approx(shares, abs=1e-4)

    code, out, err = run(capsys, "stats", project, "--judge-model", "trio", "--json")
    assert code == 0, err
    figures = json.loads(out)["rubrics"][0]
    assert figures["judge_model"] == "trio"
    jury = figures["jury"]
    assert jury["jury"] == "trio" and jury["jurors"] == list(jurors)
    overall = jury["dimensions"][0]
    table, _ = inter_rater.aggregate_raters(
        np.array([[stored[j][i] for j in jurors] for i in range(1, N + 1)])
    )
    assert overall["pairs"] == N
    assert overall["fleiss_kappa"] == pytest.approx(inter_rater.fleiss_kappa(table), abs=1e-12)
    reviewed = sorted(REVIEWS)
    human = [REVIEWS[i] for i in reviewed]
    for juror, got in zip(jurors, overall["jurors"], strict=True):
        given = [stored[juror][i] for i in reviewed]
        assert got["judge"] == juror and got["vs_human"]["n"] == len(reviewed)
        assert got["vs_human"]["agreement"] == pytest.approx(
            np.mean([g == h for g, h in zip(given, human, strict=True)])
        )
        expected = cohen_kappa_score(given, human, labels=["A", "B", "tie"])
        assert got["vs_human"]["kappa"] == pytest.approx(expected, abs=1e-12)
    verdicts = [majority[i] for i in reviewed]
    assert overall["jury"]["kappa"] == pytest.approx(
        cohen_kappa_score(verdicts, human, labels=["A", "B", "tie"]), abs=1e-12
    )
    assert figures["overall"]["dimensions"][0]["vs_human"]["agreement"] == pytest.approx(
        overall["jury"]["agreement"]
    )
    code, out, _ = run(capsys, "stats", project, "--judge-model", "trio")
    assert "jury trio: majority of judge-alpha, judge-beta, judge-gamma" in out
    assert f"overall: jurors' Fleiss κ {overall['fleiss_kappa']:.3f} over {N} pairs" in out

    # The queue: pairs where the jurors split come before the rest (after none: no flips).
    code, out, err = run(capsys, "queue", project, "--judge-model", "trio", "--json")
    assert code == 0, err
    queue = json.loads(out)
    split = {i for i in range(1, N + 1) if len({stored[j][i] for j in jurors}) > 1}
    undecided = [q for q in queue if q["pair_id"] not in REVIEWS]
    assert {q["pair_id"] for q in undecided if q["reason"] == "split"} == split - set(REVIEWS)
    reasons = [q["reason"] for q in queue]
    assert reasons == sorted(reasons, key=["split", "disagree", "unreviewed"].index)


def test_samples_of_one_profile_are_so_many_answers_and_a_confidence(
    project: Path, servers, capsys, tmp_path: Path
) -> None:
    _, _, gamma = servers
    code, out, err = run(
        capsys, "judge", project, "--rubric", RUBRIC,
        "--profile", "gamma", "--samples", "3", "--temperature", "0.9",
    )  # fmt: skip
    assert code == 0, err
    assert f"{3 * N} ok" in out
    assert "jury 'judge-gamma x3' (majority of judge-gamma#1, judge-gamma#2, judge-gamma#3)" in out
    asked = generations(gamma)
    assert len(asked) == 3 * N and {r.json["temperature"] for r in asked} == {0.9}
    stored = answers(project)
    samples = [f"judge-gamma#{k}" for k in (1, 2, 3)]
    assert sorted(stored) == samples
    # Interleaved pair by pair: each pair's three samples are the cycle's next three.
    cycle = itertools.cycle(("A", "B", "A", "B", "B"))
    for i in range(1, N + 1):
        assert [stored[s][i] for s in samples] == [next(cycle) for _ in samples]
    rows = exported(project, tmp_path / "out.csv", capsys, "judge-gamma x3")
    for i, row in enumerate(rows, start=1):
        votes = [stored[s][i] for s in samples]
        top = max(set(votes), key=votes.count)
        assert row["overall_model"] == top
        assert float(row["overall_confidence"]) == pytest.approx(votes.count(top) / 3, abs=1e-4)
    # Asked again: every sample is an answer already, none is asked twice.
    code, out, _ = run(
        capsys, "judge", project, "--rubric", RUBRIC,
        "--profile", "gamma", "--samples", "3", "--temperature", "0.9",
    )  # fmt: skip
    assert code == 0 and f"0 ok, 0 parse failures, 0 errors, {3 * N} already judged" in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--profile", "alpha", "--samples", "2", "--temperature", "0"], "temperature 0"),
        (["--profile", "alpha", "--profile", "alpha"], "profile alpha is named twice"),
        (["--profile", "alpha", "--jury", "solo"], "a jury needs at least two judges"),
        (
            ["--profile", "alpha", "--profile", "beta", "--jury", "judge-alpha"],
            "a judge of rubric href-overall has that name",
        ),
        (
            ["--profile", "alpha", "--base-url", "http://127.0.0.1:9/v1", "--model", "m"],
            "--base-url asks one server",
        ),
    ],
)
def test_a_request_that_cannot_be_kept_apart_is_refused_in_one_line(
    project: Path, servers, capsys, args: list[str], says: str
) -> None:
    before = table_digest(project)
    code, _, err = run(capsys, "judge", project, "--rubric", RUBRIC, *args)
    assert code == 1 and len(err) == 1 and says in err[0], err
    assert table_digest(project) == before


def test_two_profiles_of_one_model_are_refused(project: Path, servers, capsys) -> None:
    alpha = servers[0]
    args = ["profile", "add", "alpha2", "--base-url", alpha.base_url, "--model", "judge-alpha"]
    assert main([*args, "--no-key"]) == 0
    before = table_digest(project)
    code, _, err = run(
        capsys, "judge", project, "--rubric", RUBRIC, "--profile", "alpha", "--profile", "alpha2"
    )
    assert code == 1 and len(err) == 1
    assert "profiles alpha and alpha2 both ask model 'judge-alpha'" in err[0]
    assert table_digest(project) == before


def test_a_jury_of_judges_the_project_lacks_is_refused(project: Path, servers, capsys) -> None:
    assert run(capsys, "judge", project, "--rubric", RUBRIC, "--profile", "alpha")[0] == 0
    before = table_digest(project)
    for args, says in (
        (["--judge", "judge-alpha", "--judge", "nobody"], "judge 'nobody' has no answers"),
        (["--judge", "judge-alpha"], "a jury needs at least two judges"),
        (["--judge", "judge-alpha", "--judge", "judge-alpha"], "named twice"),
    ):
        code, _, err = run(capsys, "jury", "add", project, "j", *args)
        assert code == 1 and len(err) == 1 and says in err[0], err
    assert table_digest(project) == before
    code, _, err = run(capsys, "stats", project, "--judge-model", "no-such-jury")
    assert code == 1 and "judge 'no-such-jury' has no answers" in err[0]


def test_ctrl_c_cancels_a_job_of_several_profiles_within_a_second(project: Path, servers) -> None:
    alpha, beta, _ = servers
    for server in (alpha, beta):
        server.responder = lambda data: Reply.slow(30, "A")
    proc = subprocess.Popen(
        [sys.executable, "-m", "desktop", "judge", str(project), "--rubric", RUBRIC,
         "--profile", "alpha", "--profile", "beta"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    deadline = time.monotonic() + 30
    while not (generations(alpha) and generations(beta)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert generations(alpha) and generations(beta)  # both lanes waiting on their server
    proc.send_signal(signal.SIGINT)
    started = time.monotonic()
    _, err = proc.communicate(timeout=30)
    assert time.monotonic() - started < 1.5
    assert proc.returncode == 1
    lines = err.strip().splitlines()
    assert lines[-1] == "tiebreak: cancelled; every answer received so far is saved"
    assert "Traceback" not in err


def test_the_queue_walks_the_latest_sample_in_the_order_drawn(
    project: Path, servers, capsys
) -> None:
    assert run(capsys, "judge", project, "--rubric", RUBRIC, "--profile", "beta")[0] == 0
    code, _, err = run(capsys, "queue", project, "--sample")
    assert code == 1 and len(err) == 1 and "no sample drawn for rubric href-overall" in err[0]
    code, out, err = run(capsys, "sample", project, "--size", "4", "--seed", "3", "--json")
    assert code == 0, err
    order = [pid for pid, _ in json.loads(out)["pairs"]]
    review(project)  # Ada reviewed pairs 1 to 6: the walk leaves them out
    code, out, err = run(capsys, "queue", project, "--sample", "--json")
    assert code == 0, err
    walk = json.loads(out)
    assert [q["pair_id"] for q in walk] == [p for p in order if p not in REVIEWS]
    assert {q["reason"] for q in walk} <= {"sample"}
    with open_project(project) as store:
        for i in (7, 8):
            override(
                store, find_pair(store, f"p{i}"), rubric=RUBRIC, dimension="overall",
                verdict=Verdict.A, reviewer="bob", note=None, mode="cli",
            )  # fmt: skip
    code, out, _ = run(capsys, "queue", project, "--sample")
    assert code == 0 and out.strip().endswith("every pair of the latest sample is reviewed")


def test_a_jury_by_the_mean_of_b_scores(project: Path, servers, capsys, tmp_path: Path) -> None:
    args = ["judge", project, "--rubric", RUBRIC, "--profile", "alpha", "--profile", "beta"]
    assert run(capsys, *args, "--jury", "avg", "--combine", "mean")[0] == 0
    code, out, _ = run(capsys, "jury", "list", project)
    assert out.strip() == "href-overall  avg  mean of judge-alpha, judge-beta"
    rows = exported(project, tmp_path / "out.csv", capsys, "avg")
    # alpha's B score 0 everywhere, beta's 1 on odd pairs: a mean of 0.5 is a tie.
    assert [r["overall_model"] for r in rows] == ["tie" if i % 2 else "A" for i in range(1, N + 1)]
    code, _, err = run(capsys, "jury", "remove", project, "avg")
    assert code == 0, err
    code, _, err = run(capsys, "jury", "remove", project, "avg")
    assert code == 1 and "rubric href-overall has no jury 'avg' (juries: none)" in err[0]
