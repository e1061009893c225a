"""A RAG quality gate in pytest (the seed's CI rule): the application answers the golden set
(tala.run, as `tala run` does), tala scores what it answered, and the build fails with the
failing metrics, their intervals and the worst rows. Run: pytest examples/python."""

import os

import tala
import tala.testing

HERE = os.path.dirname(os.path.abspath(__file__))
# A golden set as `tala testset accept` writes it: questions and references, no answers.
GOLDEN = os.path.join(HERE, "..", "data", "golden.jsonl")
# The example application; yours is an http:// endpoint or a command of its own.
APP = "exec:/usr/bin/python3 " + os.path.join(HERE, "..", "rag_app", "rag_app.py") + " jsonl"


def test_rag_quality():
    answered = tala.run(GOLDEN, target=APP, progress=False)
    assert answered.failed == 0, str(answered)
    result = tala.evaluate(answered, metrics=["faithfulness", "context_recall"], on_error="skip",
                           progress=False)
    tala.testing.assert_gate(result, min={"faithfulness": 0.6, "context_recall": 0.7})
