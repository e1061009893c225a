"""What the Python package costs over the C++ engine: 100k rows of non-LLM metrics scored by
`tala eval` (the engine alone) and by tala.evaluate from a path, a list of dicts and a pandas
DataFrame, in one run. Prints each one's seconds, rows/s and overhead over the engine.

Usage: PYTHONPATH=BUILD/python /usr/bin/python3 bench/python_overhead.py BUILD [ROWS]
"""

import json
import os
import subprocess
import sys
import tempfile
import time

import tala

METRICS = ["bleu", "rouge", "chrf", "exact_match", "non_llm_string_similarity", "hit_rate",
           "mrr", "ndcg", "id_based_context_precision", "id_based_context_recall"]
WORDS = ("the tower was completed in eighteen eighty nine for the world fair in paris and "
         "stood as the tallest structure until the chrysler building rose in new york").split()


def make_rows(count):
    rows = []
    for i in range(count):
        shift = i % 7
        response = " ".join(WORDS[shift:] + WORDS[:shift])
        rows.append({
            "id": f"r{i}",
            "user_input": "When was the Eiffel Tower completed?",
            "response": response,
            "reference": " ".join(WORDS),
            "retrieved_context_ids": [f"d{(i + k) % 50}" for k in range(10)],
            "reference_context_ids": [f"d{i % 50}", f"d{(i + 3) % 50}"],
        })
    return rows


def timed(fn):
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    rows = make_rows(count)
    with tempfile.TemporaryDirectory(prefix="tala-bench-") as folder:
        data = os.path.join(folder, "rows.jsonl")
        with open(data, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row) + "\n")
        out = os.path.join(folder, "results.jsonl")
        engine = [os.path.join(build, "tala"), "eval", data, "--metrics", ",".join(METRICS),
                  "-o", out, "-q"]
        subprocess.run(engine, check=True, capture_output=True)  # warm the page cache
        runs = {"engine (tala eval)": lambda: subprocess.run(engine, check=True,
                                                             capture_output=True)}
        common = dict(metrics=METRICS, out=out, progress=False)
        runs["tala.evaluate(path)"] = lambda: tala.evaluate(data, **common)
        runs["tala.evaluate(list of dicts)"] = lambda: tala.evaluate(rows, **common)
        try:
            import pandas

            frame = pandas.DataFrame(rows)
            runs["tala.evaluate(DataFrame)"] = lambda: tala.evaluate(frame, **common)
        except ImportError:
            print("pandas not installed: DataFrame input not measured")
        # Best of three, interleaved, so a noisy moment hurts every variant alike.
        best = {name: float("inf") for name in runs}
        for _ in range(3):
            for name, run in runs.items():
                best[name] = min(best[name], timed(run))
    base = best["engine (tala eval)"]
    print(f"{count} rows, metrics: {', '.join(METRICS)}")
    print(f"{'input':32} {'seconds':>8} {'rows/s':>10} {'over the engine':>16}")
    for name, seconds in best.items():
        print(f"{name:32} {seconds:8.3f} {count / seconds:10.0f} {seconds / base - 1:+15.1%}")


if __name__ == "__main__":
    main()
