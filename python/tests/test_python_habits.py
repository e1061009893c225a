"""tala meets a Ragas user's habits: aliases everywhere, metric objects, a Result that is a
Mapping, to_pandas with inputs and reasons, columns checked before scoring, pd.NA as missing,
errors that name the DataFrame's index label and subclass the built-ins, __version__, stubs, and
a pytest plugin that fits module-scoped fixtures and shows what failed."""

import collections.abc
import json
import os

import pytest

import tala
import tala.testing

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DEMO = os.path.join(SOURCE, "examples", "data", "interactions.jsonl")

ROW = {
    "user_input": "When was the Eiffel Tower finished?",
    "response": "The Eiffel Tower was finished in 1889.",
    "retrieved_contexts": ["The Eiffel Tower in Paris was completed in 1889."],
    "reference": "It was completed in 1889.",
}
WRONG = dict(ROW, response="The Eiffel Tower was finished in 1925.")


class RagasLikeMetric:
    """What a Ragas metric object looks like to tala: something with a .name."""

    def __init__(self, name):
        self.name = name


def test_an_alias_answers_everywhere_the_name_does():
    pandas = pytest.importorskip("pandas")
    result = tala.evaluate([ROW, WRONG], metrics=["answer_relevancy", "faithfulness"],
                           progress=False)
    assert "answer_relevancy" in result and "response_relevancy" in result
    assert result["answer_relevancy"] == result["response_relevancy"]
    assert result.summary()["answer_relevancy"] == result.summary()["response_relevancy"]
    assert "answer_relevancy" in result.summary()
    table = result.to_pandas()
    assert isinstance(table, pandas.DataFrame)
    assert "answer_relevancy" in table.columns and "answer_relevancy_reason" in table.columns
    assert tala.gate(result, min={"answer_relevancy": 0.0}).passed
    verdict = tala.gate(result, min={"answer_relevancy": 1.01})
    assert not verdict.passed and verdict.checks[0]["name"].startswith("response_relevancy >=")


def test_gating_a_metric_the_run_lacks_names_the_run_not_a_temporary_file():
    result = tala.evaluate([ROW], metrics=["faithfulness"], progress=False)
    with pytest.raises(tala.NotFoundError) as caught:
        tala.gate(result, min={"context_recall": 0.5})
    assert str(caught.value) == "the run has no metric context_recall (its metrics: faithfulness)"


def test_metric_objects_are_read_by_their_name_and_anything_else_says_names_are_wanted():
    by_object = tala.evaluate([ROW, WRONG], metrics=[RagasLikeMetric("faithfulness")],
                              progress=False)
    by_name = tala.evaluate([ROW, WRONG], metrics=["faithfulness"], progress=False)
    assert dict(by_object) == dict(by_name)
    with pytest.raises(TypeError, match="metrics takes metric names"):
        tala.evaluate([ROW], metrics=[{"name": "polite", "prompt": "Is it polite?"}])
    with pytest.raises(TypeError, match="user_metrics"):
        tala.evaluate([ROW], metrics=[len])


def test_a_result_is_a_read_only_mapping_of_metric_to_mean():
    result = tala.evaluate([ROW, WRONG], metrics=["faithfulness", "context_recall"],
                           progress=False)
    assert isinstance(result, collections.abc.Mapping)
    assert list(result) == ["faithfulness", "context_recall"] == list(result.keys())
    assert len(result) == 2
    means = {m: s["mean"] for m, s in result.summary().items()}
    assert dict(result) == means and means["context_recall"] == 1.0
    assert "faithfulness" in result and "bleu" not in result and 0 not in result
    assert result.get("bleu") is None
    with pytest.raises(TypeError):
        result["faithfulness"] = 1.0  # read-only
    assert result == result and result != tala.evaluate([ROW], metrics=["faithfulness"],
                                                        progress=False)
    assert "<table" in result._repr_html_() or "<div" in result._repr_html_()


def test_to_pandas_carries_inputs_scores_reasons_and_diagnosis():
    pytest.importorskip("pandas")
    result = tala.evaluate([ROW, WRONG], metrics=["faithfulness"], progress=False)
    df = result.to_pandas()
    assert list(df.columns) == ["id", "user_input", "response", "reference",
                                "retrieved_contexts", "faithfulness", "faithfulness_reason",
                                "diagnosis"]
    bad = df[df.faithfulness < .5][["user_input", "response"]]
    assert bad.response.tolist() == [WRONG["response"]]
    assert df.retrieved_contexts[0] == ROW["retrieved_contexts"]
    assert [r.split(";")[0] for r in df.faithfulness_reason] == [
        "1 of 1 claims supported", "0 of 1 claims supported"]
    assert df.diagnosis.notna().all()


def test_a_missing_or_misspelt_required_column_is_an_error_before_anything_is_scored():
    pandas = pytest.importorskip("pandas")
    no_contexts = pandas.DataFrame([ROW, WRONG]).drop(columns=["retrieved_contexts"])
    with pytest.raises(tala.DatasetError) as caught:
        tala.evaluate(no_contexts, metrics=["faithfulness"])
    assert caught.value.field == "retrieved_contexts"
    assert "no column retrieved_contexts, which faithfulness needs" in str(caught.value)
    misspelt = pandas.DataFrame([ROW, WRONG]).rename(columns={"response": "Response"})
    with pytest.raises(tala.DatasetError, match='column "Response" .*did you mean "response"'):
        tala.evaluate(misspelt)  # the core metrics need response
    with pytest.raises(tala.DatasetError, match='did you mean "response"'):
        misspelt_key = {k: v for k, v in ROW.items() if k != "response"}
        tala.evaluate([dict(misspelt_key, responce=ROW["response"])], metrics=["faithfulness"])
    # Ragas' older names are fields, and a column no metric needs is kept as metadata.
    legacy = pandas.DataFrame([{"question": ROW["user_input"], "answer": ROW["response"],
                                "contexts": ROW["retrieved_contexts"], "topic": "paris"}])
    assert tala.evaluate(legacy, metrics=["faithfulness"]).summary()["faithfulness"]["scored"] == 1


def test_a_misspelt_field_that_no_metric_needs_is_a_warning_with_did_you_mean():
    with pytest.warns(UserWarning, match='"Reference" is not a field tala reads .did you mean '
                                         '"reference"'):
        result = tala.evaluate([dict(ROW, Reference="x")], metrics=["faithfulness"],
                               progress=False)
    assert result.summary()["faithfulness"]["scored"] == 1


def test_pd_na_and_none_are_missing_never_text():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame([ROW, ROW, ROW])
    frame["reference"] = pandas.array([ROW["reference"], pandas.NA, None], dtype="string")
    result = tala.evaluate(frame, metrics=["context_recall"], progress=False)
    assert result.summary()["context_recall"]["scored"] == 1
    assert result.summary()["context_recall"]["undefined"] == 2
    assert all("<NA>" not in json.dumps(r["inputs"]) for r in result.rows)


def test_a_bad_dataframe_row_is_named_by_its_index_label():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame([ROW, dict(ROW, retrieved_contexts=7)], index=["q-a", "q-b"])
    with pytest.raises(tala.DatasetError) as caught:
        tala.evaluate(frame, metrics=["faithfulness"])
    assert caught.value.index == "q-b" and caught.value.line == 2
    assert str(caught.value).startswith("dataframe[index='q-b']: field \"retrieved_contexts\"")
    assert isinstance(caught.value, ValueError)


def test_errors_are_the_built_in_exceptions_too(tmp_path):
    with pytest.raises(FileNotFoundError):
        tala.evaluate(str(tmp_path / "missing.jsonl"))
    with pytest.raises(ValueError):
        tala.evaluate([ROW], metrics=["faithfulness"], repeats=0)
    with pytest.raises(ValueError, match='on_error must be "fail" or "skip", not "maybe"'):
        tala.evaluate([ROW], metrics=["faithfulness"], on_error="maybe")
    with pytest.raises(RuntimeError):
        tala.evaluate([ROW] * 5, metrics=["faithfulness"], judge="openai:mock",
                      base_url="http://127.0.0.1:9/v1", cache="off")
    assert issubclass(tala.IoError, OSError)


def test_version_is_the_engines(tmp_path):
    out = tmp_path / "r.jsonl"
    tala.evaluate([ROW], metrics=["faithfulness"], out=out, progress=False)
    manifest = json.loads(out.read_text().splitlines()[0])
    found = json.dumps(manifest)
    assert isinstance(tala.__version__, str) and tala.__version__.count(".") == 2
    assert f'"tala_version": "{tala.__version__}"' in found


def test_every_submodule_has_stubs():
    package = os.path.dirname(tala.__file__)
    modules = [n[:-3] for n in os.listdir(package)
               if n.endswith(".py") and not n.startswith("_")]
    assert sorted(modules) == ["dask", "pytest_plugin", "testing"]
    for name in ["__init__", *modules]:
        assert os.path.exists(os.path.join(package, name + ".pyi")), name
    assert os.path.exists(os.path.join(package, "py.typed"))


def test_identical_failures_are_one_reason_with_their_count():
    result = tala.evaluate([ROW] * 6, metrics=["faithfulness"], progress=False,
                           judge=lambda sample, tasks: "not json")
    reasons = result._summary["failure_reasons"]
    assert len(reasons) == 1 and reasons[0][1] == 6, reasons
    assert "<lambda>: field" in reasons[0][0] and ":1:" not in reasons[0][0]
    assert f"{6:>6}  " in str(result)


def test_a_candidate_that_scores_nothing_fails_its_baseline_gate():
    base = tala.evaluate([dict(r, id=f"q{i}") for i, r in enumerate([ROW, WRONG] * 3)],
                         metrics=["faithfulness"], progress=False)
    noncommittal = dict(ROW, response="I am not sure.")
    candidate = tala.evaluate([dict(noncommittal, id=f"q{i}") for i in range(6)],
                              metrics=["faithfulness"], progress=False)
    verdict = tala.gate(candidate, baseline=base, max_drop={"faithfulness": 0.05})
    assert not verdict.passed
    assert "no row scored in both runs (the baseline scored 6, this run 0)" in str(verdict)
    alone = tala.gate(candidate, min={"faithfulness": 0.5})
    assert not alone.passed and "no row scored: 6 of 6 rows undefined" in str(alone)


def test_the_pytest_plugin_fits_a_module_fixture_and_shows_what_failed(tmp_path, run_pytest):
    (tmp_path / "test_rag.py").write_text(
        "import pytest, tala\n"
        f"DEMO = {DEMO!r}\n"
        "@pytest.fixture(scope='module')\n"
        "def result(tala_judge):\n"
        "    return tala.evaluate(DEMO, metrics=['faithfulness'], judge=tala_judge,\n"
        "                         progress=False)\n"
        "def test_quality(result, tala_gate):\n"
        "    tala_gate(result, min={'faithfulness': 0.95})\n")
    run = run_pytest(tmp_path, "-q")
    out = run.stdout + run.stderr
    assert run.returncode == 1, out
    assert "ScopeMismatch" not in out and "FAIL  faithfulness >= 0.9500" in out
    assert "question: " in out
    kept = tmp_path / ".tala" / "failed-gates" / "test_rag.py-test_quality"
    assert f"results: {os.path.join('.tala', 'failed-gates', 'test_rag.py-test_quality')}" in out
    assert (kept / "results.jsonl").exists() and (kept / "report.html").exists()
    # The message, not tala's own code, is what pytest shows.
    assert "verdict = gate(" not in out
