"""tala.history: the store `tala history` keeps, from Python, with DataFrames."""

import json
import os

import pytest

import tala

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DEMO = os.path.join(SOURCE, "examples", "data", "interactions.jsonl")


def _rows():
    with open(DEMO, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def test_add_runs_trend_report_prune(tmp_path):
    h = tala.history(tmp_path / "h.sqlite")
    first = tala.evaluate(DEMO, metrics=["faithfulness"])
    run = h.add(first, label="first", tags={"branch": "main"})
    assert run["added"] is True and run["id"] == 1 and run["label"] == "first"
    assert h.add(first)["added"] is False  # the same results file is one run

    # The same golden questions, answered worse: every response replaced by a wrong claim.
    rows = _rows()
    for row in rows:
        row["response"] = "The moon is made of green cheese and orbits Jupiter."
    second = tala.evaluate(rows, metrics=["faithfulness"])
    h.add(second, label="second", tags=["branch=main"])

    runs = h.runs()
    assert list(runs["label"]) == ["first", "second"]
    assert runs.loc[0, "tags"] == {"branch": "main"}
    assert runs["golden_digest"].nunique() == 1  # one golden set, whatever was answered
    assert runs.loc[1, "faithfulness"] < runs.loc[0, "faithfulness"]

    trend = h.trend("faithfulness", tags={"branch": "main"})
    assert trend.attrs["metric"] == "faithfulness"
    assert trend["compared"].tolist() == [False, True]
    assert 15 <= trend.loc[1, "pairs"] <= len(rows)  # rows scored in both runs
    assert trend.loc[1, "base_run"] == 1
    assert bool(trend.loc[1, "drop"]) is True
    assert trend.loc[1, "change_high"] < 0

    page = h.report(tmp_path / "history.html")
    text = open(page, encoding="utf-8").read()
    assert "tala history" in text and "second" in text

    with pytest.raises(tala.NotFoundError, match="the runs have: faithfulness"):
        h.trend("context_recall")
    with pytest.raises(ValueError, match="keep=N or older_than_days=D"):
        h.prune()
    with pytest.raises(ValueError, match="key=value"):
        h.runs(tags=["branch"])
    assert h.prune(keep=1) == 1
    assert list(h.runs()["label"]) == ["second"]


def test_a_missing_results_file_is_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        tala.history(tmp_path / "h.sqlite").add(tmp_path / "nope.jsonl")
