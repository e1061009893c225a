"""tala.testset and tala.accept_testset: the engine's `tala testset`, from Python."""
import json
import os

import pytest

import tala

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
DATA = os.path.join(SOURCE, "examples", "data")


def test_candidates_from_logged_rows_and_chunks_then_accepted(tmp_path):
    with open(os.path.join(DATA, "interactions.jsonl")) as f:
        rows = [json.loads(line) for line in f]
    ts = tala.testset(logs=rows, docs=os.path.join(DATA, "knowledge_base.jsonl"), size=5, seed=3)
    assert len(ts) == 5
    assert "intents" in str(ts)
    assert ts.report["items"] == 5
    logged = {r["user_input"] for r in rows}
    for item in ts:
        assert item["user_input"] in logged          # the users' own words
        for quote in item["metadata"]["quotes"]:
            assert any(quote["text"] in c for c in item["reference_contexts"])
    frame = ts.to_pandas()
    assert list(frame["id"]) == [i["id"] for i in ts.items]
    # The same seed, the same candidates; the CLI reads what save() writes.
    again = tala.testset(logs=rows, docs=os.path.join(DATA, "knowledge_base.jsonl"), size=5, seed=3)
    assert again.items == ts.items
    path = ts.save(tmp_path / "candidates.jsonl")
    labels = tmp_path / "labels.jsonl"
    labels.write_text("\n".join(json.dumps({"id": i["id"], "decision": d}) for i, d in
                                zip(ts.items, ["accept", "reject", "unanswerable"])) + "\n")
    out = tmp_path / "golden.jsonl"
    accepted = tala.accept_testset(path, labels, out=out)
    assert (accepted["accepted"], accepted["rejected"], accepted["unanswerable"]) == (1, 1, 1)
    assert accepted["unlabelled"] == 2
    assert len(accepted["rows"]) == 2 and out.read_text().count("\n") == 2
    kept, refuse = accepted["rows"]
    assert kept["reference"] == ts.items[0]["reference"]
    assert kept["metadata"]["review"] == "accept"
    assert refuse["metadata"]["answerable"] == "no" and "reference_contexts" not in refuse


def test_bad_input_names_the_problem():
    with pytest.raises(tala.InvalidArgumentError, match="--logs"):
        tala.testset()
    with pytest.raises(TypeError):
        tala.testset(logs=[{"user_input": "When?"}], size="5")
    with pytest.raises(tala.InvalidArgumentError, match="offline"):
        tala.testset(logs=[{"user_input": "When?"}], judge="gpt-4o-mini")
    with pytest.raises(TypeError, match="base_urll"):
        tala.testset(docs=os.path.join(DATA, "knowledge_base.jsonl"), judge="openai:m",
                     base_urll="http://127.0.0.1:9/v1")


def test_an_llm_judge_writes_questions_for_the_documents(mock_judge):
    docs = os.path.join(DATA, "knowledge_base.jsonl")
    options = dict(judge="openai:mock-model", base_url=mock_judge, api_key="test", cache="off",
                   max_in_flight=4)
    estimate = tala.testset(docs=docs, size=6, dry_run=True, **options)
    assert len(estimate) == 0
    assert estimate.report["judge_calls"]["estimated"] is True
    assert estimate.report["judge_calls"]["calls"] == 12
    ts = tala.testset(docs=docs, size=6, **options)
    assert 4 <= len(ts) <= 6
    calls = ts.report["judge_calls"]
    assert calls["estimated"] is False and calls["per_kept_item"] <= 3
    for item in ts:
        meta = item["metadata"]
        assert meta["source"] == "synthetic" and meta["persona"]
        assert meta["prompt_version"] == "testset_question@1+testset_reference@1"
        for quote in meta["quotes"]:
            assert any(quote["text"] in c for c in item["reference_contexts"])
    frame = ts.to_pandas()
    assert set(frame["source"]) == {"synthetic"} and frame["persona"].notna().all()


def test_the_intents_are_read_for_meaning_by_the_judges_embeddings_or_offline(mock_judge):
    with open(os.path.join(DATA, "interactions.jsonl")) as f:
        rows = [json.loads(line) for line in f]
    docs = os.path.join(DATA, "knowledge_base.jsonl")
    options = dict(judge="openai:mock-model", base_url=mock_judge, api_key="test", cache="off",
                   max_in_flight=4)
    ts = tala.testset(logs=rows, docs=docs, size=4, **options)
    assert ts.report["intents_joined_by_meaning"] is not None
    assert ts.report["judge_calls"]["by_prompt"]["embeddings"] >= 1
    offline = tala.testset(logs=rows, docs=docs, size=4, embeddings="offline", **options)
    assert "embeddings" not in offline.report["judge_calls"]["by_prompt"]
    assert len(offline) == 4
    with pytest.raises(tala.InvalidArgumentError, match="--embeddings"):
        tala.testset(logs=rows, docs=docs, size=4, embeddings="bogus", **options)


def test_each_quote_says_where_it_stands_in_its_document(tmp_path):
    # Characters as Python counts them: the document's text sliced at [start, end) is the quote,
    # accented and Japanese letters before it included.
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "manual.md").write_text(
        "# Télécommande (リモコン)\n\n## Wall mounting\n\nThe TV fits a VESA 300 by 300 mount. "
        "Use M6 screws that are 12 millimetres long.\n\n## Sound\n\nThe TV has two 10 watt "
        "speakers. Bluetooth headphones can be paired in the sound menu.\n", encoding="utf-8")
    asked = ["What screws does the wall mount need?", "How many watts are the speakers?"]
    logs = [{"id": f"q{k}", "user_input": asked[k % 2]} for k in range(6)]
    ts = tala.testset(logs=logs, docs=str(docs), size=2, seed=1)
    text = (docs / "manual.md").read_text(encoding="utf-8")
    quotes = [q for item in ts for q in item["metadata"]["quotes"]]
    assert quotes
    for q in quotes:
        assert q["document"] == "manual.md"
        assert text[q["start"]:q["end"]] == q["text"]
