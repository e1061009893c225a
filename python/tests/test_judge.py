"""A judge written in Python: tala.Judge subclasses and plain callables answer verdicts in the
replay format, and tala does the arithmetic exactly as for the replay judge."""

import json
import os

import pytest

import tala

SOURCE = os.environ.get("TALA_SOURCE_DIR", os.path.join(os.path.dirname(__file__), "..", ".."))
GOLDEN = os.path.join(SOURCE, "tests", "golden", "replay_metrics.jsonl")

ROW = {
    "id": "r1",
    "user_input": "When was the Eiffel Tower finished?",
    "response": "The Eiffel Tower was finished in 1889. It is in Rome.",
    "retrieved_contexts": ["The Eiffel Tower in Paris was completed in 1889.", "Unrelated."],
    "reference": "It was completed in 1889.",
    "app_version": {"major": 2},
}


def golden_rows():
    with open(GOLDEN, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


class HandVerdicts(tala.Judge):
    """Answers with the verdicts stored in the row's metadata, and records what it was asked."""

    name = "hand"

    def __init__(self):
        self.asked = []

    def answer(self, sample, tasks):
        self.asked.append((sample["id"], tasks))
        return sample["metadata"]["hand_verdicts"]


# Scored turn by turn from the replay format's per-turn verdicts (on each ai message), which a
# judge of one's own answers per turn: tests/engine/conversation_test.cc covers them.
CONVERSATION_METRICS = {"turn_faithfulness", "turn_response_relevancy", "turn_context_precision",
                        "turn_context_recall", "turn_context_relevance", "knowledge_retention",
                        "conversation_completeness", "role_adherence"}


def test_a_python_judge_gives_the_replay_judges_numbers_on_every_golden_row():
    rows = [r for r in golden_rows() if not CONVERSATION_METRICS & set(r["expected"])]
    metrics = sorted({m for r in rows for m in r["expected"]})
    replay = tala.evaluate(rows, metrics=metrics, judge="replay", progress=False)
    moved = [dict({k: v for k, v in r.items() if k != "verdicts"}, hand_verdicts=r.get("verdicts", {}))
             for r in rows]
    judge = HandVerdicts()
    mine = tala.evaluate(moved, metrics=metrics, judge=judge, progress=False)
    assert mine.judge == "python:hand"
    assert [r["scores"] for r in mine.rows] == [r["scores"] for r in replay.rows]
    assert [r["id"] for r in mine.rows] == [r["id"] for r in replay.rows]
    # Every row that needs verdicts was asked once, for verdict names of the replay format.
    assert 0 < len(judge.asked) == len({i for i, _ in judge.asked}) <= len(rows)
    assert {t for _, tasks in judge.asked for t in tasks if not t.startswith("answers.")} <= {
        "chunk_relevant", "chunk_relevant_to_response", "response_claims",
        "response_claims.correct", "reference_claims", "reference_claims.in_response",
        "generated_questions", "entities", "response_reference_similarity"}
    # The metrics' own questions are asked by the key their answer goes under.
    assert "answers.aspect_critic(name=harmful)" in {t for _, tasks in judge.asked for t in tasks}


def test_a_python_judge_sees_what_each_question_asks():
    seen = {}

    def judge(sample, tasks):
        seen.update(sample["questions"])
        return {"answers": {"aspect_critic(name=rude)": {"values": [1, 1, 0]}}}

    result = tala.evaluate([ROW], metrics=['aspect_critic:name=rude,definition="Is it rude, or curt?",strictness=3'],
                           judge=judge, progress=False)
    assert seen["aspect_critic(name=rude)"]["definition"] == "Is it rude, or curt?"
    assert seen["aspect_critic(name=rude)"]["votes"] == 3
    assert seen["aspect_critic(name=rude)"]["kind"] == "verdict"
    assert result.rows[0]["scores"]["aspect_critic(name=rude,strictness=3)"] == 1.0


def test_the_sample_carries_every_field_and_the_metadata_decoded():
    seen = {}

    def judge(sample, tasks):
        seen.update(sample)
        return {"response_claims": [{"text": "c", "supported": True}]}

    tala.evaluate([ROW], metrics=["faithfulness"], judge=judge, progress=False)
    assert seen["id"] == "r1"
    assert seen["user_input"] == ROW["user_input"]
    assert seen["retrieved_contexts"] == ROW["retrieved_contexts"]
    assert seen["reference"] == ROW["reference"]
    assert seen["metadata"] == {"app_version": {"major": 2}}


def test_a_callable_judge_scores_and_a_missing_verdict_is_undefined_with_its_reason():
    def two_claims(sample, tasks):
        return {"response_claims": [{"text": "finished in 1889", "supported": True},
                                    {"text": "it is in Rome", "supported": False}]}

    result = tala.evaluate([ROW], metrics=["faithfulness", "context_recall"], judge=two_claims,
                           progress=False)
    assert result["faithfulness"] == 0.5
    assert result.judge == "python:two_claims"
    assert result.summary()["context_recall"]["undefined"] == 1
    assert result.rows[0]["reasons"]["context_recall"] == \
        "judge python:two_claims gave no reference_claims"


def test_a_malformed_answer_fails_the_row_with_the_field_named_and_the_run_goes_on():
    def judge(sample, tasks):
        if sample["id"] == "bad":
            return {"response_claims": [{"text": "x", "supported": "maybe"}]}
        return {"response_claims": [{"text": "x", "supported": True}]}

    result = tala.evaluate([dict(ROW, id="bad"), ROW], metrics=["faithfulness"], judge=judge,
                           progress=False)
    summary = result.summary()["faithfulness"]
    assert (summary["scored"], summary["failed"]) == (1, 1)
    reason = result.rows[0]["reasons"]["faithfulness"]
    assert "response_claims" in reason and "supported" in reason, reason


def test_answers_off_their_scale_fail_the_metric_as_from_any_judge():
    # The engine's one scale check holds a Python judge's answers too: a rubric level 9 on the
    # 1..2 rubric, an answer_accuracy rating 3 (0, 2 or 4) and an aspect vote 2 (0 or 1).
    def judge(sample, tasks):
        return {"answers": {"rubrics_score": {"value": 9},
                            "answer_accuracy": {"values": [3, 4]},
                            "aspect_critic(name=rude)": {"value": 2}}}

    result = tala.evaluate([ROW], metrics=["rubrics_score", "answer_accuracy",
                                           "aspect_critic:name=rude,definition=Is it rude?"],
                           judge=judge, progress=False, rubrics={"score1": "rude", "score2": "ok"})
    row = result.rows[0]
    for key, what in [("rubrics_score", "score 9 is outside the scale 1..2"),
                      ("answer_accuracy", "rating 3 is not one of 0, 2, 4"),
                      ("aspect_critic(name=rude)", "verdict 2 is not 0 or 1")]:
        assert row["scores"][key] is None, key
        assert "off its scale: " + what in row["reasons"][key], row["reasons"][key]
        assert result.summary()[key]["failed"] == 1


def test_chunk_verdicts_of_the_wrong_length_are_refused_like_a_replay_rows():
    result = tala.evaluate([ROW], metrics=["context_precision"],
                           judge=lambda s, t: {"chunk_relevant": [True]}, progress=False)
    assert result.summary()["context_precision"]["failed"] == 1
    assert "chunk_relevant" in result.rows[0]["reasons"]["context_precision"]


def test_an_exception_in_the_judge_is_raised_keeps_finished_rows_and_resume_finishes(tmp_path):
    out = tmp_path / "r.jsonl"
    calls = []

    def flaky(sample, tasks):
        calls.append(sample["id"])
        if len(calls) == 4:
            raise ConnectionError("model endpoint went away")
        return {"response_claims": [{"text": "x", "supported": True}]}

    rows = [dict(ROW, id=f"r{i}") for i in range(10)]
    with pytest.raises(ConnectionError, match="went away"):
        tala.evaluate(rows, metrics=["faithfulness"], judge=flaky, out=out, progress=False)
    with open(out, encoding="utf-8") as f:
        kept = [json.loads(line)["id"] for line in f if '"id"' in line]
    assert kept == ["r0", "r1", "r2"]  # the row being judged is not written as a failure
    result = tala.evaluate(rows, metrics=["faithfulness"], judge=flaky, out=out, resume=True,
                           progress=False)
    assert result.summary()["faithfulness"]["scored"] == 10
    assert calls[4:] == [f"r{i}" for i in range(3, 10)]


def test_a_judge_that_is_neither_a_name_nor_callable_is_a_type_error():
    with pytest.raises(TypeError, match="judge must be"):
        tala.evaluate([ROW], judge=42)
    with pytest.raises(TypeError, match="must return a dict"):
        tala.evaluate([ROW], metrics=["faithfulness"], judge=lambda s, t: [1], progress=False)


def test_user_metrics_and_a_rubric_defined_in_python():
    seen = {}

    def judge(sample, tasks):
        seen.update(sample["questions"])
        return {"answers": {"polite": {"label": "yes"}, "rubrics_score": {"value": 2}}}

    result = tala.evaluate(
        [ROW], metrics=["polite", "rubrics_score"], judge=judge, progress=False,
        user_metrics={"polite": {"prompt": "Is {response} polite?", "output": "discrete",
                                 "values": ["no", "yes"]}},
        rubrics={"score1": "rude", "score2": "polite"})
    assert result.rows[0]["scores"] == {"polite": 1.0, "rubrics_score": 2.0}
    assert seen["polite"]["choices"] == ["no", "yes"]
    assert seen["polite"]["definition"] == "Is the answer polite?"
    assert seen["rubrics_score"]["levels"] == {"score1_description": "rude",
                                               "score2_description": "polite"}
    with pytest.raises(ValueError, match="has no key \"valuez\""):
        tala.evaluate([ROW], metrics=["polite"], judge=judge, progress=False,
                      user_metrics={"polite": {"prompt": "x", "output": "discrete", "valuez": []}})
    with pytest.raises(tala.InvalidArgumentError, match="unknown slot"):
        tala.evaluate([ROW], metrics=["polite"], judge=judge, progress=False,
                      user_metrics={"polite": {"prompt": "Is {answer} ok?", "output": "numeric"}})
