"""tala from Python on the bundled demo data, with the offline judge: prints the same summary
as `make demo`. Run: make python && PYTHONPATH=build/python /usr/bin/python3 examples/python/quickstart.py"""

import os

import tala

here = os.path.dirname(os.path.abspath(__file__))
data = os.path.join(here, "..", "data", "interactions.jsonl")
# No metrics named: the core set (Ragas' four and the retrieval pair by ids), as `make demo`.
result = tala.evaluate(data, judge="offline")
print(result)
print("faithfulness:", round(result["faithfulness"], 4))
