"""tala from Python on the bundled demo data, with the offline judge: prints the same summary
as `make demo`. Run: make python && PYTHONPATH=build/python /usr/bin/python3 examples/python/quickstart.py"""

import os

import tala

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "data", "interactions.jsonl")
metrics = ["faithfulness", "response_relevancy", "context_precision", "context_recall",
           "noise_sensitivity", "factual_correctness", "id_based_context_recall"]

result = tala.evaluate(data, metrics=metrics, judge="offline")
print(result)
print("faithfulness:", round(result["faithfulness"], 4))
