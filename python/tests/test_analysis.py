"""tala.compare, tala.calibrate, tala.power and the reports: the CLI's analyses from Python, with
the same figures, and tala's pytest plugin."""

import json
import os
import subprocess

import pytest

import tala

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("TALA_BINARY_DIR", os.path.join(SOURCE, "build"))
TALA = os.path.join(BINARY, "tala")
DEMO = os.path.join(SOURCE, "examples", "data", "interactions.jsonl")
METRICS = ["faithfulness", "context_recall", "bleu"]


def cli(*args):
    return subprocess.run([TALA, *map(str, args)], capture_output=True, text=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The demo run, and a candidate whose first five answers gain an unsupported sentence."""
    folder = tmp_path_factory.mktemp("runs")
    with open(DEMO, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    for row in rows[:5]:
        row["response"] += " The museum also sells tickets to the moon."
    base = tala.evaluate(DEMO, metrics=METRICS, out=folder / "base.jsonl", progress=False)
    candidate = tala.evaluate(rows, metrics=METRICS, out=folder / "cand.jsonl", progress=False)
    return base, candidate


def test_compare_gives_the_clis_figures_and_text(runs):
    base, candidate = runs
    comparison = tala.compare(base, candidate)
    json_out = json.loads(cli("compare", base.results_path, candidate.results_path,
                              "--json").stdout)
    assert comparison["unmatched_rows"] == json_out["unmatched_rows"]
    for mine, theirs in zip(comparison["metrics"], json_out["metrics"]):
        assert mine["metric"] == theirs["metric"]
        assert mine["verdict"] == theirs["verdict"]
        assert mine["difference"] == pytest.approx(theirs["difference"], abs=1e-5)
        assert list(mine["ci"]) == pytest.approx(theirs["ci95"], abs=1e-5)
        assert mine["p_value"] == pytest.approx(theirs["p_value"], abs=1e-5)
    assert str(comparison) == cli("compare", base.results_path, candidate.results_path).stdout
    assert comparison["faithfulness"]["verdict"] == "worse"
    assert "faithfulness" in comparison.worse
    losses = comparison["faithfulness"]["losses"]
    assert len(losses) == 3 and all(change < 0 for _, change in losses)
    assert {row_id for row_id, _ in losses} <= {f"demo-0{i}" for i in range(1, 6)}
    assert [change for _, change in losses] == sorted(change for _, change in losses)


def test_compare_of_files_without_common_rows_raises(runs, tmp_path):
    base, _ = runs
    other = tala.evaluate([{"id": "x", "response": "a", "reference": "a"}], metrics=["bleu"],
                          out=tmp_path / "o.jsonl", progress=False)
    with pytest.raises(tala.NotFoundError, match="no metric is scored on rows common"):
        tala.compare(base, other)
    with pytest.raises(tala.TalaError, match="missing.jsonl"):
        tala.compare(base, tmp_path / "missing.jsonl")


def test_calibrate_gives_the_clis_figures(tmp_path):
    labelled = tmp_path / "labels.jsonl"
    values = [(True, 0.9), (True, 0.7), (False, 0.6), (False, 0.2), (True, 0.4), (False, None)]
    with open(labelled, "w", encoding="utf-8") as f:
        for i, (human, judge) in enumerate(values):
            f.write(json.dumps({"id": i, "human": human, "score": judge, "g": i // 2}) + "\n")
    mine = tala.calibrate(labelled, human="human", judge="score", pair_by="g")
    theirs = json.loads(cli("calibrate", labelled, "--human", "human", "--judge", "score",
                            "--pair-by", "g", "--json").stdout)
    for key in ("n", "undefined_judge", "missing_human", "confusion", "pairs"):
        assert mine[key] == theirs[key], key
    for key in ("raw_agreement", "kappa", "auroc", "best_threshold", "pairwise_accuracy"):
        assert mine[key] == pytest.approx(theirs[key], abs=1e-4), key
    assert (mine["n"], mine["undefined_judge"]) == (5, 1)
    assert str(mine) == cli("calibrate", labelled, "--human", "human", "--judge", "score",
                            "--pair-by", "g").stdout
    with open(labelled, "a", encoding="utf-8") as f:
        f.write(json.dumps({"id": 9, "human": True, "score": "high"}) + "\n")
    with pytest.raises(tala.DatasetError) as caught:
        tala.calibrate(labelled, human="human", judge="score")
    assert caught.value.line == 7


def test_power_gives_the_clis_sentences():
    margin = tala.power(p=0.8, n=50)
    assert margin["kind"] == "margin" and margin["margin"] == pytest.approx(0.1109, abs=1e-4)
    assert str(margin) == cli("power", "--p", 0.8, "--n", 50).stdout.strip()
    assert tala.power(p1=0.8, p2=0.85)["rows"] == 906
    assert tala.power(p1=0.8, p2=0.85, paired=True, discordant=0.1)["rows"] == 312
    with pytest.raises(tala.InvalidArgumentError, match="discordant"):
        tala.power(p1=0.8, p2=0.85, paired=True)
    with pytest.raises(tala.InvalidArgumentError, match=r"p must lie in \[0, 1\]"):
        tala.power(p=1.5, n=10)


def test_reports_are_the_clis_reports(runs, tmp_path):
    base, _ = runs
    html = base.report_html(tmp_path / "mine.html")
    written = base.report(markdown=tmp_path / "mine.md", csv=tmp_path / "mine.csv")
    assert written == [str(tmp_path / "mine.md"), str(tmp_path / "mine.csv")]
    assert cli("report", base.results_path, "--html", tmp_path / "cli.html", "--markdown",
               tmp_path / "cli.md", "--csv", tmp_path / "cli.csv").returncode == 0
    for name in ("html", "md", "csv"):
        mine = (tmp_path / f"mine.{name}").read_bytes()
        assert mine == (tmp_path / f"cli.{name}").read_bytes(), name
    assert html == str(tmp_path / "mine.html") and b"faithfulness" in (tmp_path / "mine.html").read_bytes()
    with pytest.raises(tala.TalaError, match="cannot write"):
        base.report_html(tmp_path / "no-such-folder" / "r.html")


def test_the_pytest_plugin_gives_its_fixtures_and_option(tmp_path, run_pytest):
    (tmp_path / "test_gate.py").write_text(
        "import tala\n"
        f"DEMO = {DEMO!r}\n"
        "def test_quality(tala_gate, tala_judge):\n"
        "    assert tala_judge == 'offline'\n"
        "    tala_gate(tala.evaluate(DEMO, metrics=['faithfulness'], judge=tala_judge,\n"
        "                            progress=False), min={'faithfulness': 0.95})\n")
    run = run_pytest(tmp_path, "-q")
    assert run.returncode == 1, run.stdout + run.stderr
    assert "FAIL  faithfulness >= 0.9500: mean 0.7168" in run.stdout
    assert "worst rows for faithfulness:" in run.stdout
    header = run_pytest(tmp_path, "--tala-judge", "replay", "--co")
    assert "tala: judge replay" in header.stdout
