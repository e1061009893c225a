"""Context precision with a reference whose facts are spread over several chunks, on sets made
mechanically from real text: for each HaluEval question of tests/data/testset/halueval_intents.jsonl
whose knowledge has three sentences or more, its sentences are the chunks (four at most) beside
two sentences of the next question's knowledge, shuffled (seeded); the reference is its first
three sentences. A chunk of its own knowledge is useful, the other two are not, so an exact judge
scores the ideal context precision printed beside tala's. Questions 0-39 are the half the rule
was chosen on, 40-79 the half reported.
    /usr/bin/python3 bench/spread_reference.py build/tala"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")


def sentences(text):
    text = re.sub(r"\.(?=[A-Z])", ". ", text)
    return [s.strip() for s in re.split(r'(?<=[.!?])\s+(?=[A-Z0-9"])', text) if len(s.split()) >= 4]


def average_precision(useful):
    hits = total = 0
    for k, u in enumerate(useful, 1):
        if u:
            hits += 1
            total += hits / k
    return total / hits if hits else 0.0


def main(tala):
    with open(os.path.join(SOURCE, "tests", "data", "testset", "halueval_intents.jsonl")) as f:
        items = [json.loads(line) for line in f]
    with tempfile.TemporaryDirectory() as scratch:
        for name, (first, last) in {"development": (0, 40), "reported": (40, 80)}.items():
            rng = random.Random(7)
            rows = []
            for i in range(first, last):
                own = sentences(items[i]["knowledge"])
                if len(own) < 3:
                    continue
                chunks = [(s, True) for s in own[:4]]
                chunks += [(s, False) for s in sentences(items[(i + 1) % len(items)]["knowledge"])[:2]]
                rng.shuffle(chunks)
                rows.append({"id": "q%d" % i, "user_input": items[i]["question"],
                             "retrieved_contexts": [c for c, _ in chunks],
                             "reference": " ".join(own[:3]), "useful": [u for _, u in chunks]})
            data = os.path.join(scratch, name + ".jsonl")
            out = os.path.join(scratch, name + "-results.jsonl")
            with open(data, "w") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
            subprocess.run([tala, "eval", data, "-m", "context_precision", "--no-progress", "-q",
                            "-o", out], check=True, stdout=subprocess.DEVNULL)
            truth = {r["id"]: r["useful"] for r in rows}
            scores, agree, chunks = [], 0, 0
            with open(out) as f:
                for line in f:
                    r = json.loads(line)
                    if r.get("id") not in truth:
                        continue
                    scores.append(r["scores"]["context_precision"])
                    for judged, useful in zip(r["verdicts"]["chunk_relevant"], truth[r["id"]]):
                        agree += bool(judged) == useful
                        chunks += 1
            ideal = sum(average_precision(u) for u in truth.values()) / len(truth)
            print("%s half: %d rows, context precision %.3f (an exact judge: %.3f), chunk "
                  "verdicts agree with the truth on %.1f%% of %d chunks"
                  % (name, len(rows), sum(scores) / len(scores), ideal, 100 * agree / chunks,
                     chunks))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(SOURCE, "build", "tala"))
