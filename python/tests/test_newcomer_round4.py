"""The Python findings of shared/reports/newcomer-round4.md, each reproduced as the report ran it:
scores back on their own DataFrame rows (P1), pandas' CSV lists read (P2), Ragas' shapes taken
(P3), the caller's column names and metadata kept (P4, N10), the judge keyword named (P5), and
ids that are the frame's index labels (N11)."""

import json
import os
import subprocess

import pytest

import tala

pd = pytest.importorskip("pandas")

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("TALA_BINARY_DIR", os.path.join(SOURCE, "build"))

GOOD = {
    "question": "How tall is Mount Everest?",
    "answer": "Mount Everest is 8,849 metres high.",
    "contexts": ["Mount Everest is 8,849 metres high, the highest mountain on Earth."],
    "ground_truth": "It is 8,849 metres high.",
}
BAD = dict(GOOD, answer="Mount Everest is 8,849 metres high, and it was designed by a committee "
                        "of 40 engineers in Tokyo.")


def frame(n=8):
    rows = []
    for i in range(n):
        rows.append(dict(BAD if i % 4 == 3 else GOOD, question=f"{GOOD['question']} ({i})"))
    return pd.DataFrame(rows)


def test_p1_scores_of_a_filtered_frame_land_on_their_own_rows():
    df = frame(8)
    odd = df[df.index % 2 == 1].copy()  # index 1, 3, 5, 7; 3 and 7 hallucinate
    out = tala.evaluate(odd, metrics=["faithfulness"], progress=False).to_pandas()
    assert list(out.index) == [1, 3, 5, 7]
    odd["faithfulness"] = out["faithfulness"]  # the pandas habit: aligned on the index
    assert odd["faithfulness"].notna().all()
    assert odd.loc[3, "faithfulness"] < 0.8 and odd.loc[7, "faithfulness"] < 0.8
    assert odd.loc[1, "faithfulness"] == 1.0 and odd.loc[5, "faithfulness"] == 1.0


def test_p1_n11_ids_are_the_frames_index_labels_and_a_named_index_is_kept():
    df = frame(4)
    df.index = pd.Index(["q-a", "q-b", "q-c", "q-d"], name="ticket")
    result = tala.evaluate(df, metrics=["faithfulness"], progress=False)
    out = result.to_pandas()
    assert list(out["id"]) == ["q-a", "q-b", "q-c", "q-d"]
    assert out.index.name == "ticket" and list(out.index) == list(df.index)
    assert out.loc["q-d", "faithfulness"] < 0.8
    # The engine's worst rows name the same labels the user sees.
    assert [r["id"] for r in result.rows] == ["q-a", "q-b", "q-c", "q-d"]


def test_p1_an_id_column_wins_and_repeated_labels_still_come_back_on_the_index():
    df = frame(4)
    df["id"] = ["a", "b", "c", "d"]
    out = tala.evaluate(df.iloc[[3, 0]], metrics=["faithfulness"], progress=False).to_pandas()
    assert list(out.index) == [3, 0] and list(out["id"]) == ["d", "a"]
    repeated = frame(3)
    repeated.index = [5, 5, 6]
    out = tala.evaluate(repeated, metrics=["faithfulness"], progress=False).to_pandas()
    assert list(out.index) == [5, 5, 6]


def test_p1_a_row_skipped_as_invalid_is_nan_on_its_own_row():
    df = frame(4)
    df.loc[2, "contexts"] = 7  # not a list of strings
    out = tala.evaluate(df, metrics=["faithfulness"], on_error="skip", progress=False).to_pandas()
    assert list(out.index) == [0, 1, 3]
    df["faithfulness"] = out["faithfulness"]
    assert pd.isna(df.loc[2, "faithfulness"]) and df.loc[3, "faithfulness"] < 0.8


def test_p2_a_dataframe_read_from_pandas_csv_export_is_scored_as_the_cli_scores_the_file(tmp_path):
    df = frame(4)
    path = tmp_path / "export.csv"
    df.to_csv(path)  # index column, list cells as Python's repr
    back = pd.read_csv(path, index_col=0)
    assert isinstance(back.loc[0, "contexts"], str)
    py = tala.evaluate(back, metrics=["faithfulness"], progress=False)
    cli = subprocess.run([os.path.join(BINARY, "tala"), "eval", str(path), "-m", "faithfulness",
                          "--no-progress", "-q", "--json", "-o", str(tmp_path / "r.jsonl")],
                         capture_output=True, text=True, check=True)
    assert py["faithfulness"] == pytest.approx(json.loads(cli.stdout)["metrics"][0]["mean"])


def test_p2_a_text_cell_that_is_no_list_says_so_with_the_python_keyword():
    df = frame(2)
    df["contexts"] = ["just some text", "[not, a, list"]
    with pytest.raises(tala.DatasetError) as caught:
        tala.evaluate(df, metrics=["faithfulness"], progress=False)
    text = str(caught.value)
    assert "not a list written as text" in text
    assert 'on_error="skip"' in text and "--on-error" not in text


def test_p3_ragas_dict_of_columns_and_dataset_like_objects_are_taken():
    columns = {k: [GOOD[k], BAD[k]] for k in GOOD}
    result = tala.evaluate(columns, metrics=["faithfulness"], progress=False)
    assert [s["faithfulness"] for s in result.scores][0] == 1.0
    assert result.scores[1]["faithfulness"] < 0.8

    class EvaluationDatasetLike:  # Ragas' EvaluationDataset and HF Datasets have to_pandas()
        def to_pandas(self):
            return pd.DataFrame(columns)

    other = tala.evaluate(EvaluationDatasetLike(), metrics=["faithfulness"], progress=False)
    assert other.scores == result.scores
    with pytest.raises(ValueError, match="columns of one length"):
        tala.evaluate({"question": ["a", "b"], "answer": ["x"]}, progress=False)


def test_p4_to_pandas_keeps_the_callers_column_names_and_the_rows_metadata():
    df = frame(4)
    df["team"] = ["a", "b", "a", "b"]
    out = tala.evaluate(df, metrics=["faithfulness"], progress=False).to_pandas()
    bad = out[out.faithfulness < 0.8][["question", "answer"]]  # the Ragas 0.1 filter
    assert list(bad.index) == [3]
    assert list(out["team"]) == ["a", "b", "a", "b"]


def test_n10_a_rows_metadata_object_is_its_metadata(tmp_path):
    rows = [dict(GOOD, metadata={"label": 1, "feedback": "down"}),
            dict(BAD, metadata={"label": 0})]
    result = tala.evaluate(rows, metrics=["faithfulness"], progress=False)
    assert result.rows[0]["metadata"] == {"label": 1, "feedback": "down"}
    out = result.to_pandas()
    assert list(out["label"]) == [1, 0]
    saved = result.save(tmp_path / "r.jsonl")
    # python.md's own calibrate example reads metadata.label.
    cal = subprocess.run([os.path.join(BINARY, "tala"), "calibrate", str(saved), "--human",
                          "metadata.label", "--judge", "scores.faithfulness"],
                         capture_output=True, text=True)
    assert cal.returncode in (0, 1), cal.stderr
    assert "no row has both" not in cal.stderr


def test_p5_an_llm_keyword_points_at_judge():
    with pytest.raises(TypeError) as caught:
        tala.evaluate([GOOD], llm=object())
    assert "judge=" in str(caught.value)


def test_p6_a_golden_set_as_tala_writes_it_is_answered_by_the_app_then_gated(tmp_path):
    golden = os.path.join(SOURCE, "examples", "data", "golden.jsonl")
    app = ("exec:/usr/bin/python3 " + os.path.join(SOURCE, "examples", "rag_app", "rag_app.py")
           + " jsonl")
    with pytest.raises(tala.InvalidArgumentError, match="no metric can be computed"):
        tala.evaluate(golden, progress=False)  # questions and references only
    answered = tala.run(golden, target=app, out=tmp_path / "answered.jsonl", progress=False)
    assert answered.report["rows_answered"] == 22 and answered.failed == 0
    assert os.fspath(answered) == str(tmp_path / "answered.jsonl")
    result = tala.evaluate(answered, metrics=["faithfulness"], on_error="skip", progress=False)
    assert result["faithfulness"] > 0.8
    with pytest.raises(TypeError, match="unknown options"):
        tala.run(golden, target=app, retries=3)
    with pytest.raises(tala.TalaError):
        tala.run(golden, target="exec:/nonexistent/app", progress=False)


def test_n5_a_dry_run_needs_no_key():
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    done = subprocess.run([os.path.join(BINARY, "tala"), "eval",
                           os.path.join(SOURCE, "examples", "data", "interactions.jsonl"),
                           "--judge", "openai:gpt-4o-mini", "--dry-run"],
                          capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert "OPENAI_API_KEY" not in done.stderr


def test_p7_a_gate_is_named_as_its_metric_was_asked_for():
    result = tala.evaluate([GOOD, BAD], metrics=["answer_relevancy"], progress=False)
    verdict = tala.gate(result, min={"answer_relevancy": 0.99})
    assert not verdict.passed
    assert str(verdict).startswith("FAIL  answer_relevancy >= 0.99"), str(verdict)
