"""Sharded evaluation on Dask: rows/s of one process (tala.evaluate) against a LocalCluster of 1
and 2 worker processes (tala.dask.evaluate), and what the merge costs, in one run. The rows are
logged-interaction rows scored with the offline judge and non-LLM metrics, the work a team
spreads over a cluster. Each cluster is started before its clock starts.

Usage: PYTHONPATH=BUILD/python /usr/bin/python3 bench/dask_scaling.py [ROWS] [SHARDS]
"""

import json
import os
import random
import shutil
import sys
import tempfile
import time

import distributed

import tala
import tala.dask

METRICS = ["faithfulness", "context_recall", "hit_rate", "mrr", "ndcg", "rouge"]


def write_rows(path, n):
    rng = random.Random(7)
    words = ("fare pass ticket bus tram ferry night station refund card student monthly "
             "single ride price euro minute hour").split()
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            a, b = rng.sample(words, 2), rng.sample(words, 3)
            right = rng.random() < 0.8
            f.write(json.dumps({
                "id": f"r{i}", "user_input": f"How much is the {a[0]} {a[1]}?",
                "response": f"The {a[0]} {a[1]} costs {i % 50 if right else i % 50 + 1} euros.",
                "retrieved_contexts": [f"The {a[0]} {a[1]} costs {i % 50} euros.",
                                       f"The {b[0]} is {b[1]} on {b[2]}."],
                "retrieved_context_ids": [f"c{i % 97}", f"c{(i + 1) % 97}"],
                "reference_context_ids": [f"c{i % 97}" if right else "c-none"],
                "reference": f"It costs {i % 50} euros.",
            }) + "\n")


def main():
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    shards = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    work = tempfile.mkdtemp(prefix="tala-bench-dask-")
    try:
        data = os.path.join(work, "rows.jsonl")
        write_rows(data, rows)
        start = time.perf_counter()
        single = tala.evaluate(data, metrics=METRICS, out=os.path.join(work, "one.jsonl"),
                               progress=False)
        one = time.perf_counter() - start
        print(f"rows: {rows}, shards: {shards}, cores: {os.cpu_count()}")
        print(f"one process (tala.evaluate)     {one:7.2f} s  {rows / one:9.0f} rows/s  1.00x")
        for workers in (1, 2):
            with distributed.LocalCluster(n_workers=workers, processes=True,
                                          threads_per_worker=1, dashboard_address=":0") as c, \
                    distributed.Client(c) as client:
                client.run(lambda: __import__("tala"))  # the engine loaded in every worker
                start = time.perf_counter()
                spread = tala.dask.evaluate(data, metrics=METRICS, client=client, shards=shards,
                                            out=os.path.join(work, f"w{workers}.jsonl"),
                                            progress=False)
                took = time.perf_counter() - start
            assert spread.summary() == single.summary()
            print(f"dask, {workers} worker process{'es' if workers > 1 else '  '}      "
                  f"{took:7.2f} s  {rows / took:9.0f} rows/s  {one / took:4.2f}x")
        # The merge alone: the shards of a run joined again.
        parts = [os.path.join(work, f"s{i}.jsonl") for i in range(shards)]
        for i, part in enumerate(parts):
            tala.evaluate(data, metrics=METRICS, out=part, shard=(i, shards), progress=False)
        start = time.perf_counter()
        tala.merge(parts, out=os.path.join(work, "merged.jsonl"))
        merge = time.perf_counter() - start
        size = os.path.getsize(os.path.join(work, "merged.jsonl")) / 2**20
        print(f"merge of the {shards} shards       {merge:7.2f} s  {rows / merge:9.0f} rows/s  "
              f"({size:.0f} MiB of results, {merge / one * 100:.1f}% of the one-process run)")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
