"""The Python package over the C++ engine: same numbers as the CLI, rows from a list, errors
with their line and field, Ctrl-C keeping rows, two evaluations at once."""

import json
import os
import random
import subprocess
import tempfile
import threading

import pytest

import tala

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
BINARY = os.environ.get("TALA_BINARY_DIR", os.path.join(SOURCE, "build"))
DEMO = os.path.join(SOURCE, "examples", "data", "interactions.jsonl")
METRICS = ["faithfulness", "response_relevancy", "context_precision", "context_recall"]

ROW = {
    "user_input": "When was the Eiffel Tower finished?",
    "response": "The Eiffel Tower was finished in 1889.",
    "retrieved_contexts": ["The Eiffel Tower in Paris was completed in 1889."],
    "reference": "It was completed in 1889.",
}


def rows_of(path):
    with open(path, encoding="utf-8") as f:
        return [r for r in map(json.loads, f) if "id" in r]


def test_scores_equal_the_clis_on_the_demo_data(tmp_path):
    cli_out = tmp_path / "cli.jsonl"
    subprocess.run([os.path.join(BINARY, "tala"), "eval", DEMO, "--metrics", ",".join(METRICS),
                    "-o", str(cli_out), "-q"], check=True, capture_output=True)
    result = tala.evaluate(DEMO, metrics=METRICS)
    cli_rows = rows_of(cli_out)
    assert [r["scores"] for r in result.rows] == [r["scores"] for r in cli_rows]
    assert [r["diagnosis"] for r in result.rows] == [r["diagnosis"] for r in cli_rows]
    assert result["faithfulness"] == pytest.approx(
        sum(r["scores"]["faithfulness"] for r in cli_rows
            if r["scores"]["faithfulness"] is not None) /
        sum(1 for r in cli_rows if r["scores"]["faithfulness"] is not None), abs=1e-12)


def test_the_results_file_is_the_clis_byte_for_byte_apart_from_its_timestamp(tmp_path):
    import re

    cli_out = tmp_path / "cli.jsonl"
    subprocess.run([os.path.join(BINARY, "tala"), "eval", DEMO, "-o", str(cli_out), "-q"],
                   check=True, capture_output=True)
    mine = tala.evaluate(DEMO, out=tmp_path / "py.jsonl", progress=False)
    stamp = re.compile(rb'"created":"[^"]*"')
    cli_bytes = stamp.sub(b'"created":""', cli_out.read_bytes())
    py_bytes = stamp.sub(b'"created":""', (tmp_path / "py.jsonl").read_bytes())
    assert cli_bytes.count(b"\n") == 23 and py_bytes == cli_bytes


def test_threads_change_no_score():
    one = tala.evaluate(DEMO, metrics="all", progress=False)
    three = tala.evaluate(DEMO, metrics="all", threads=3, progress=False)
    assert [r["scores"] for r in three.rows] == [r["scores"] for r in one.rows]
    with pytest.raises(ValueError, match="--threads must be 0"):
        tala.evaluate(DEMO, threads=-1)


def test_a_list_of_dicts_is_scored_and_summarised():
    result = tala.evaluate([ROW, dict(ROW, response="The tower was finished in 1925.")],
                           metrics="faithfulness")
    summary = result.summary()["faithfulness"]
    assert summary["scored"] == 2
    assert summary["direction"] == "higher"
    lo, hi = summary["ci"]
    assert lo <= summary["mean"] <= hi
    assert result.rows[0]["scores"]["faithfulness"] > result.rows[1]["scores"]["faithfulness"]
    assert "faithfulness" in str(result)


def test_rows_in_memory_leave_no_temporary_files(tmp_path, monkeypatch):
    # The rows are written to a temporary file for the engine: it goes once they are scored,
    # whether the results go to `out` or to a temporary file that lives as long as the Result.
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    tala.evaluate([ROW], metrics="faithfulness", out=tmp_path / "r.jsonl", progress=False)
    assert os.listdir(scratch) == []
    result = tala.evaluate([ROW], metrics="faithfulness", progress=False)
    assert len(os.listdir(scratch)) == 1
    del result
    assert os.listdir(scratch) == []
    with pytest.raises(tala.DatasetError):
        tala.evaluate([{"user_input": 3}], metrics="faithfulness", out=tmp_path / "bad.jsonl")
    assert os.listdir(scratch) == []


def test_str_and_the_notebook_view_lead_with_the_diagnosis():
    # Without metrics: the core set. str() is `tala eval`'s summary; _repr_html_ has the same
    # order: the verdict, the worst rows, then the metrics by the half of the pipeline they judge.
    result = tala.evaluate(DEMO, progress=False)
    assert sorted(result.summary()) == sorted([
        "faithfulness", "response_relevancy", "context_precision", "context_recall",
        "id_based_context_precision", "id_based_context_recall"])
    text = str(result)
    assert text.startswith("diagnosis: the retriever is the principal failure: ranking noise")
    assert text.index("worst rows") < text.index("retriever (") < text.index("generator (")
    html = result._repr_html_()
    verdict = html.index("the retriever is the principal failure")
    assert verdict < html.index("demo-08") < html.index("<table>")
    assert html.index(">retriever<") < html.index(">generator<")
    everything = tala.evaluate(DEMO, metrics="all", progress=False)
    assert len(everything.summary()) == 26


def test_save_writes_the_clis_results_format(tmp_path):
    result = tala.evaluate([ROW], metrics=["faithfulness"])
    path = result.save(tmp_path / "r.jsonl")
    gate = subprocess.run([os.path.join(BINARY, "tala"), "gate", str(path), "--min",
                           "faithfulness=0.5"], capture_output=True, text=True)
    assert gate.returncode == 0, gate.stdout + gate.stderr


def test_a_bad_row_raises_dataset_error_with_line_and_field():
    bad = dict(ROW, retrieved_contexts=7)
    with pytest.raises(tala.DatasetError) as caught:
        tala.evaluate([ROW, bad], metrics=["faithfulness"])
    assert caught.value.line == 2
    assert caught.value.field == "retrieved_contexts"
    assert str(caught.value).startswith('rows:2: field "retrieved_contexts"')
    assert len(caught.value.errors) == 1


def test_unknown_metric_and_missing_file_raise_their_own_errors(tmp_path):
    with pytest.raises(tala.NotFoundError) as caught:
        tala.evaluate([ROW], metrics=["faithfulnes"])
    assert 'unknown metric "faithfulnes"' in str(caught.value)
    with pytest.raises(tala.TalaError):
        tala.evaluate(str(tmp_path / "missing.jsonl"))


def test_an_unreachable_judge_raises_judge_error():
    with pytest.raises(tala.JudgeError) as caught:
        tala.evaluate([ROW] * 5, metrics=["faithfulness"], judge="openai:mock",
                      base_url="http://127.0.0.1:9/v1", cache="off")
    assert "cannot reach the judge" in str(caught.value)


def test_the_mock_judge_over_http(tmp_path):
    mock = subprocess.Popen([os.path.join(BINARY, "tala-mock-judge")], stdout=subprocess.PIPE,
                            text=True)
    try:
        url = mock.stdout.readline().strip()
        result = tala.evaluate([ROW] * 3, metrics=["faithfulness", "context_recall"],
                               judge="openai:mock-model", base_url=url, cache="off")
        assert result.summary()["faithfulness"]["scored"] == 3
        assert result.judge == "openai:mock-model"
        # Every layout (the default is auto) scores the same rows alike on the mock.
        for layout in ("separate", "row-first", "combined"):
            other = tala.evaluate([ROW] * 3, metrics=["faithfulness", "context_recall"],
                                  judge="openai:mock-model", base_url=url, cache="off",
                                  layout=layout)
            assert [r["scores"] for r in other.rows] == [r["scores"] for r in result.rows], layout
        with pytest.raises(ValueError, match="--layout"):
            tala.evaluate([ROW], metrics=["faithfulness"], judge="openai:mock-model",
                          base_url=url, cache="off", layout="sideways")
    finally:
        mock.terminate()
        mock.wait()


def test_two_evaluations_at_once_agree():
    results = [None, None]

    def run(i):
        results[i] = tala.evaluate(DEMO, metrics=METRICS)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r["scores"] for r in results[0].rows] == [r["scores"] for r in results[1].rows]


def test_a_dataframe_is_scored_like_the_same_rows():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame([ROW, dict(ROW, response="The tower was finished in 1925.")])
    from_frame = tala.evaluate(frame, metrics=["faithfulness"])
    from_list = tala.evaluate([ROW, dict(ROW, response="The tower was finished in 1925.")],
                              metrics=["faithfulness"])
    assert [r["scores"] for r in from_frame.rows] == [r["scores"] for r in from_list.rows]
    table = from_frame.to_pandas()
    assert list(table.columns) == ["id", "user_input", "response", "reference",
                                   "retrieved_contexts", "faithfulness", "faithfulness_reason",
                                   "diagnosis"]
    assert len(table) == 2


def test_a_missing_dataframe_cell_is_a_missing_field():
    pandas = pytest.importorskip("pandas")
    frame = pandas.DataFrame([ROW, dict(ROW, reference=None)])
    result = tala.evaluate(frame, metrics=["context_recall"], on_error="skip")
    assert result.summary()["context_recall"]["undefined"] == 1


def test_progress_reaches_every_row():
    seen = []
    tala.evaluate([ROW] * 5, metrics=["faithfulness"], progress=lambda d, t: seen.append((d, t)))
    assert seen and seen[-1] == (5, 5)


def test_an_exception_in_progress_stops_the_run_and_is_raised():
    def fail(done, total):
        raise RuntimeError("stop here")

    with pytest.raises(RuntimeError, match="stop here"):
        tala.evaluate([ROW] * 5, metrics=["faithfulness"], progress=fail)


def test_the_metric_registry():
    names = [m["name"] for m in tala.metrics()]
    assert "faithfulness" in names and "context_recall" in names
    faithfulness = next(m for m in tala.metrics() if m["name"] == "faithfulness")
    assert faithfulness["direction"] == "higher"
    assert "retrieved_contexts" in faithfulness["required_fields"]


def test_a_thousand_small_evaluations_do_not_grow_memory():
    def rss_kib():
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))

    for _ in range(100):
        tala.evaluate([ROW], metrics=["faithfulness"], progress=False)
    before = rss_kib()
    for _ in range(1000):
        tala.evaluate([ROW], metrics=["faithfulness"], progress=False)
    assert rss_kib() - before < 20 * 1024, "RSS grew by more than 20 MiB over 1,000 runs"


def test_ctrl_c_raises_keyboard_interrupt_and_keeps_finished_rows(tmp_path):
    import signal

    out = tmp_path / "r.jsonl"
    interrupted = []

    def press_ctrl_c(done, total):
        if done >= 10 and not interrupted:
            interrupted.append(done)
            os.kill(os.getpid(), signal.SIGINT)

    with pytest.raises(KeyboardInterrupt):
        tala.evaluate([ROW] * 5000, metrics=["faithfulness"], out=out, progress=press_ctrl_c)
    kept = rows_of(out)
    assert 10 <= len(kept) < 5000
    # Resume finishes the rest from the same file.
    result = tala.evaluate([ROW] * 5000, metrics=["faithfulness"], out=out, resume=True,
                           progress=False)
    assert result.summary()["faithfulness"]["scored"] == 5000
    # Python's own Ctrl-C handling is back once the run is over.
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_gate_passes_and_fails_like_the_cli():
    import tala.testing

    result = tala.evaluate(DEMO, metrics=["faithfulness", "noise_sensitivity"], progress=False)
    ok = tala.gate(result, min={"faithfulness": 0.5})
    assert ok.passed and str(ok).startswith("PASS  faithfulness >= 0.5000: mean 0.7168")
    cli = subprocess.run([os.path.join(BINARY, "tala"), "gate", result.results_path, "--min",
                          "faithfulness=0.9"], capture_output=True, text=True)
    bad = tala.gate(result, min={"faithfulness": 0.9})
    assert not bad.passed and str(bad) == cli.stdout.strip()
    with pytest.raises(AssertionError) as caught:
        tala.testing.assert_gate(result, min={"faithfulness": 0.9, "noise_sensitivity": 0.5})
    message = str(caught.value)
    assert "1 of 2 tala gates failed" in message
    assert "FAIL  faithfulness >= 0.9000: mean 0.7168, 95% interval" in message
    assert "worst rows for faithfulness:" in message and "demo-" in message
    with pytest.raises(tala.InvalidArgumentError):
        tala.gate(result)


def test_a_judge_profile_from_tala_align_diagnoses_with_its_thresholds(tmp_path):
    # tala align's profile (issue 55): a stricter faithfulness line than the default 0.7.
    profile = tmp_path / "profile.json"
    profile.write_text(json.dumps({"tala_judge_profile": 1,
                                   "metrics": {"faithfulness": {"threshold": 0.99}}}))
    metrics = ["faithfulness", "context_recall"]
    plain = tala.evaluate(DEMO, metrics=metrics, out=tmp_path / "a.jsonl", progress=False)
    strict = tala.evaluate(DEMO, metrics=metrics, out=tmp_path / "b.jsonl",
                           progress=False, judge_profile=str(profile))
    manifest = json.loads(open(tmp_path / "b.jsonl").readline())["tala_manifest"]
    assert "judge_profile" in manifest["settings"]
    grounded = lambda r: sum(1 for d in r.to_pandas()["diagnosis"] if d == "generator not grounded")
    # Rows at 0.7-0.99 faithfulness with their retrieval fine fail the stricter line.
    assert grounded(strict) > grounded(plain)
    with pytest.raises(ValueError, match="not a judge profile"):
        tala.evaluate(DEMO, metrics=["faithfulness"], progress=False, judge_profile=DEMO)


def test_compare_pairwise_with_the_offline_judge(tmp_path):
    # tala compare --pairwise from Python (issue 55): the offline judge compares its readings.
    good = [{"id": str(i), "user_input": f"Where does ferry {i} leave?",
             "response": f"Ferry {i} leaves from Pier {i}.",
             "retrieved_contexts": [f"Ferry {i} leaves from Pier {i} every hour."]}
            for i in range(12)]
    worse = [dict(r, response=f"Ferry {r['id']} leaves from Dock 99.") if int(r["id"]) % 4 == 0
             else r for r in good]
    base = tala.evaluate(good, metrics=["faithfulness"], out=tmp_path / "a.jsonl", progress=False)
    cand = tala.evaluate(worse, metrics=["faithfulness"], out=tmp_path / "b.jsonl", progress=False)
    verdict = tala.compare(base, cand, pairwise=True)
    assert (verdict["wins"], verdict["losses"], verdict["pairs"]) == (0, 3, 12)
    assert verdict["position_bias"] is None
    with pytest.raises(TypeError, match="only with pairwise=True"):
        tala.compare(base, cand, base_url="http://127.0.0.1:1")
    # --sequential from Python, against the mock LLM judge: a gate far above the candidate's win
    # rate fails before every pair is judged; the pairs left are listed.
    mock = subprocess.Popen([os.path.join(BINARY, "tala-mock-judge")], stdout=subprocess.PIPE,
                            text=True)
    try:
        url = mock.stdout.readline().strip()
        stop = tala.compare(base, cand, pairwise=True, judge="openai:mock-model", base_url=url,
                            cache="off", max_in_flight=8, sequential=True, min_win_rate=0.95)
        assert stop["sequential"]["decided"] and stop["sequential"]["passed"] is False
        assert stop["sequential"]["pairs_judged"] + len(stop["sequential"]["not_judged"]) == 12
        assert stop["sequential"]["pairs_judged"] < 12
        with pytest.raises(ValueError, match="--min-win-rate"):
            tala.compare(base, cand, pairwise=True, judge="openai:mock-model", base_url=url,
                         cache="off", sequential=True)
    finally:
        mock.terminate()
        mock.wait()
    with pytest.raises(TypeError, match="needs pairwise=True"):
        tala.compare(base, cand, sequential=True)


def _labelled(tmp_path, shuffle):
    """120 rows whose faithfulness spreads over [0, 1]; people call a row right at 0.9 and above
    (stricter than tala's 0.7), but for a few slips; shuffled, the labels say nothing."""
    rng = random.Random(8)
    scores = [rng.random() for _ in range(120)]
    verdicts = [int((s >= 0.9) != (rng.random() < 0.03)) for s in scores]
    if shuffle:
        rng.shuffle(verdicts)
    results = tmp_path / "results.jsonl"
    results.write_text("".join(json.dumps({"id": f"r{i}", "scores": {"faithfulness": s}}) + "\n"
                               for i, s in enumerate(scores)))
    labels = tmp_path / ("shuffled.jsonl" if shuffle else "labels.jsonl")
    labels.write_text(json.dumps({"tala_labels": {"pick": "random", "seed": 1}}) + "\n" +
                      "".join(json.dumps({"id": f"r{i}", "faithfulness": v}) + "\n"
                              for i, v in enumerate(verdicts)))
    return results, labels


def test_align_refits_the_offline_blend_and_evaluate_scores_with_it(tmp_path):
    # A project whose people call an answer padded with asides right: no threshold of the
    # built-in blend tells it from an aside alone; the refitted weights do (issue 55 item 1).
    asides = ["The weather in spring is usually mild and wet.",
              "Many visitors arrive by train on weekends.",
              "The local football team plays in blue shirts.",
              "Cheese from the valley is sold at fairs."]
    rows, labels = [], [{"tala_labels": {"pick": "random", "seed": 1}}]
    for i in range(90):
        place = f"the {['bakery', 'library', 'museum', 'bridge', 'school'][i % 5]} in Town {i}"
        answer = f"The {place[4:]} opened in {1850 + i}."
        response = [answer, f"{answer} {asides[i % 4]} {asides[(i + 1) % 4]}", asides[i % 4]][i % 3]
        rows.append({"id": f"r{i}", "user_input": f"When did {place} open?", "response": response})
        labels.append({"id": f"r{i}", "response_relevancy": int(i % 3 != 2)})
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    labelled = tmp_path / "labels.jsonl"
    labelled.write_text("".join(json.dumps(r) + "\n" for r in labels))
    plain = tala.evaluate(str(data), metrics=["response_relevancy"], out=tmp_path / "a.jsonl",
                          progress=False)
    manifest = json.loads(open(tmp_path / "a.jsonl").readline())["tala_manifest"]
    if manifest.get("embeddings") != "use-lite-0.2.0":
        pytest.skip("no sentence encoder: the blends need it")
    profile = tmp_path / "profile.json"
    fitted = tala.align(plain, labelled, out=profile, data=data)
    blend = fitted["metrics"][0]["blend"]
    assert blend["kept"] and blend["accuracy"] > blend["threshold_only_accuracy"]
    assert len(blend["weights"]) == len(blend["features"]) + 1
    assert fitted["written"] == str(profile)
    threshold = fitted["metrics"][0]["threshold"]
    scored = tala.evaluate(str(data), metrics=["response_relevancy"], out=tmp_path / "b.jsonl",
                           progress=False, judge_profile=profile)
    before = plain.to_pandas().set_index("id")["response_relevancy"]
    after = scored.to_pandas().set_index("id")["response_relevancy"]
    assert before["r1"] < threshold <= after["r1"]
    assert after["r2"] < threshold


def test_align_fits_a_threshold_to_labels_and_writes_a_profile_only_when_it_gains(tmp_path):
    results, labels = _labelled(tmp_path, shuffle=False)
    profile = tmp_path / "profile.json"
    fitted = tala.align(results, labels, out=profile)
    assert fitted["improves"] and fitted["written"] == str(profile)
    faithfulness = fitted["metrics"][0]
    assert faithfulness["metric"] == "faithfulness" and faithfulness["labels"] == 120
    assert 0.8 <= faithfulness["threshold"] <= 0.95
    assert faithfulness["accuracy_after"] > faithfulness["accuracy_before"]
    assert faithfulness["gain_ci"][0] > 0
    assert "faithfulness" in str(fitted)
    assert json.loads(profile.read_text())["metrics"]["faithfulness"]["threshold"] == \
        faithfulness["threshold"]
    # The profile moves the diagnosis of an evaluation, as tala eval --judge-profile does.
    scored = tala.evaluate([ROW], metrics=["faithfulness"], judge_profile=str(profile))
    assert scored.rows[0]["scores"]["faithfulness"] is not None
    # Shuffled labels: nothing to learn, nothing written unless forced.
    results, shuffled = _labelled(tmp_path, shuffle=True)
    none = tmp_path / "none.json"
    assert tala.align(results, shuffled, out=none)["written"] is None
    assert not none.exists()
    assert tala.align(results, shuffled, out=none, force=True)["written"] == str(none)
    with pytest.raises(tala.InvalidArgumentError):
        tala.align(results, shuffled, metrics="context_recall", out=None)
