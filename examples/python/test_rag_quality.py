"""A RAG quality gate in pytest (the seed's CI rule): score the golden set, fail the build with
the failing metrics, their intervals and the worst rows. Run: pytest examples/python."""

import os

import tala
import tala.testing

GOLDEN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data",
                      "interactions.jsonl")


def test_rag_quality():
    result = tala.evaluate(GOLDEN, metrics=["faithfulness", "context_recall"], progress=False)
    tala.testing.assert_gate(result, min={"faithfulness": 0.6, "context_recall": 0.7})
