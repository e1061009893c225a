"""Conversations in Python (issue 54): tala.evaluate takes a conversation per row (user_input a
list of message dicts whose ai messages carry their passages) or a frame with a row per turn
(conversation_id, turn); to_pandas() gives a row per turn, on the frame's own index."""

import os

import pandas as pd

import tala

FARES = ("Larkspur Transit fares from 1 January 2025: a single ride costs 2.40 euros and is valid "
         "for 90 minutes of transfers on buses and trams. Children under 12 ride free.")

TURNS = [
    ("How much does a single ride cost?", "A single ride costs 2.40 euros."),
    ("How long is a single ride valid for transfers?",
     "A single ride is valid for three hours and also covers the metro."),
    ("Do children under 12 ride free?", "Yes, children under 12 ride free."),
]


def conversation():
    messages = []
    for question, answer in TURNS:
        messages.append({"type": "human", "content": question})
        messages.append({"type": "ai", "content": answer, "retrieved_contexts": [FARES]})
    return {"id": "chat-1", "user_input": messages}


def test_a_conversation_per_row_gives_a_row_per_turn():
    result = tala.evaluate([conversation()], progress=False)
    frame = result.to_pandas()
    assert list(frame["turn"]) == [1, 2, 3]
    assert list(frame["conversation_id"]) == ["chat-1"] * 3
    assert frame.loc[1, "user_input"] == TURNS[1][0]
    # The invented second answer fails there, and only there.
    assert frame.loc[1, "turn_faithfulness"] < 0.5
    assert frame.loc[0, "turn_faithfulness"] >= 0.9
    assert frame.loc[1, "diagnosis"] == "generator not grounded"
    # A metric scored once per conversation repeats its value on each turn.
    assert frame["conversation_completeness"].nunique() == 1
    assert result.rows[0]["first_failing_turn"] == 2


def test_a_frame_with_a_row_per_turn_gets_its_scores_back_on_its_rows():
    df = pd.DataFrame({
        "conversation_id": ["a", "a", "a", "b", "b"],
        "turn": [1, 2, 3, 1, 2],
        "user_input": [q for q, _ in TURNS] + [q for q, _ in TURNS[:2]],
        "response": [a for _, a in TURNS] + ["A single ride costs 2.40 euros.",
                                             "It is valid for 90 minutes of transfers."],
        "retrieved_contexts": [[FARES]] * 5,
    }, index=[10, 11, 12, 20, 21])
    result = tala.evaluate(df, progress=False)
    assert len(result.rows) == 2
    frame = result.to_pandas()
    assert list(frame.index) == [10, 11, 12, 20, 21]
    df["turn_faithfulness"] = frame["turn_faithfulness"]
    assert df.loc[11, "turn_faithfulness"] < 0.5
    assert df.loc[20, "turn_faithfulness"] >= 0.9


def test_turn_rows_out_of_order_name_the_row_and_field():
    df = pd.DataFrame({"conversation_id": ["a", "a"], "turn": [2, 1],
                       "user_input": ["q2", "q1"], "response": ["r2", "r1"],
                       "retrieved_contexts": [["c"], ["c"]]})
    try:
        tala.evaluate(df, progress=False)
    except tala.DatasetError as e:
        assert e.field == "turn"
        assert "turn order" in str(e)
    else:
        raise AssertionError("turns out of order were accepted")


def test_a_simulated_user_plays_the_scenarios_against_the_app(tmp_path):
    source = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    app = "exec:/usr/bin/python3 " + os.path.join(source, "examples", "rag_app", "rag_app.py") + " jsonl"
    dataset = tala.run(simulate=os.path.join(source, "examples", "data", "scenarios.jsonl"),
                       target=app, out=tmp_path / "sim.jsonl", progress=False)
    result = tala.evaluate(dataset, progress=False)
    frame = result.to_pandas()
    assert frame["conversation_id"].nunique() == 20
    assert frame["turn"].max() >= 2
    try:
        tala.run("golden.jsonl", simulate="s.jsonl", target=app)
    except TypeError as e:
        assert "one of them" in str(e)
    else:
        raise AssertionError("golden and simulate together were accepted")


def test_an_llm_judge_plays_the_user_from_python(tmp_path, mock_judge, monkeypatch):
    source = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
    app = "exec:/usr/bin/python3 " + os.path.join(source, "examples", "rag_app", "rag_app.py") + " jsonl"
    monkeypatch.setenv("OPENAI_API_KEY", "test-key")
    scenarios = os.path.join(source, "examples", "data", "scenarios.jsonl")
    run = tala.run(simulate=scenarios, target=app, out=tmp_path / "llm.jsonl", progress=False,
                   user_judge="openai:mock-model", user_base_url=mock_judge,
                   user_cache=str(tmp_path / "user.sqlite"))
    assert run.report["user_calls"] > 0
    ends = dict(run.report["simulation_ends"])
    assert sum(ends.values()) == 20
    assert set(ends) <= {"success", "limit", "give_up"}
    # The same scenarios and answers again: the cache plays the same users.
    again = tala.run(simulate=scenarios, target=app, out=tmp_path / "again.jsonl", progress=False,
                     user_judge="openai:mock-model", user_base_url=mock_judge,
                     user_cache=str(tmp_path / "user.sqlite"))
    assert again.report["user_cache_hits"] == run.report["user_calls"]
