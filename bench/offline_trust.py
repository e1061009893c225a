"""How far to trust each offline metric, measured on real labelled text (issue 34): the relevance
pairs of bench/relevance_sets.py, made mechanically from HaluEval, per half (fit: the half the
blends were fitted on; held: the half reported), and HaluEval faithfulness on the same halves.
Pairwise accuracy counts a tie as half. Prints a Markdown table.
    /usr/bin/python3 bench/offline_trust.py [TALA] [HALUEVAL_JSONL]"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import relevance_sets  # noqa: E402

GOALS = {  # issue 34's floors on the held-out half
    "next_answer": 0.90, "answer_sentence": 0.80, "bare_answer": 0.80, "context_sentence": 0.80,
    "context_passage": 0.90,
}
METRIC = {"next_answer": "response_relevancy", "answer_sentence": "response_relevancy",
          "bare_answer": "response_relevancy", "context_sentence": "context_relevance",
          "context_passage": "context_relevance"}


def evaluate(tala, rows, metric, scratch, name):
    data = os.path.join(scratch, name + ".jsonl")
    out = os.path.join(scratch, name + "-results.jsonl")
    with open(data, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)
    subprocess.run([tala, "eval", data, "--judge", "offline", "-m", metric, "--no-progress", "-q",
                    "-o", out], check=True, stdout=subprocess.DEVNULL)
    scores = {}
    with open(out) as f:
        for line in f:
            r = json.loads(line)
            if "id" in r and "scores" in r:
                scores[r["id"]] = r["scores"].get(metric)
    return scores


def pairwise(rows, scores):
    """(pairwise accuracy, ties, pairs, mean positive, mean negative)."""
    by_pair = {}
    for r in rows:
        by_pair.setdefault(r["metadata"]["pair_id"], {})[r["metadata"]["label"]] = scores.get(r["id"])
    wins = ties = n = 0
    pos, neg = [], []
    for p in by_pair.values():
        a, b = p.get("positive"), p.get("negative")
        a = 0.0 if a is None else a
        b = 0.0 if b is None else b
        pos.append(a)
        neg.append(b)
        n += 1
        if abs(a - b) < 1e-9:
            ties += 1
        elif a > b:
            wins += 1
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    return (wins + ties / 2) / n if n else float("nan"), ties, n, mean(pos), mean(neg)


def auroc(positives, negatives):
    wins = 0.0
    for p in positives:
        for q in negatives:
            wins += 1.0 if p > q else 0.5 if p == q else 0.0
    return wins / (len(positives) * len(negatives))


def main(tala, halueval):
    rows = relevance_sets.build(halueval)
    print("| set (HaluEval, made mechanically) | metric | half | pairwise | ties | pairs | "
          "mean positive | mean negative | goal (held) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as scratch:
        for kind, metric in METRIC.items():
            subset = [r for r in rows if r["metadata"]["kind"] == kind]
            scores = evaluate(tala, subset, metric, scratch, kind)
            for half in ("fit", "held"):
                part = [r for r in subset if r["metadata"]["half"] == half]
                acc, ties, n, mp, mn = pairwise(part, scores)
                print("| %s | %s | %s | %.3f | %d | %d | %.3f | %.3f | %s |"
                      % (kind, metric, half, acc, ties, n, mp, mn,
                         "≥ %.2f" % GOALS[kind] if half == "held" else ""))
        # Faithfulness on the same halves: each right answer against its hallucinated ones.
        with open(halueval) as f:
            hal = [json.loads(line) for line in f]
        order = []
        for r in hal:
            if r["pair_id"] not in order:
                order.append(r["pair_id"])
        half_of = {p: ("fit" if i < len(order) // 2 else "held") for i, p in enumerate(order)}
        scores = evaluate(tala, hal, "faithfulness", scratch, "faithfulness")
        for half in ("fit", "held"):
            part = [r for r in hal if half_of[r["pair_id"]] == half]
            right = {r["pair_id"]: scores.get(r["id"]) or 0.0 for r in part if r["label"] == "right"}
            wins = n = 0.0
            for r in part:
                if r["label"] == "right" or r["pair_id"] not in right:
                    continue
                s = scores.get(r["id"]) or 0.0
                wins += 1.0 if right[r["pair_id"]] > s else 0.5 if right[r["pair_id"]] == s else 0.0
                n += 1
            area = auroc([scores.get(r["id"]) or 0.0 for r in part if r["label"] == "right"],
                         [scores.get(r["id"]) or 0.0 for r in part if r["label"] != "right"])
            print("| halueval right vs hallucinated (AUROC %.4f) | faithfulness | %s | %.3f | | %d "
                  "| | | %s |" % (area, half, wins / n, n, "≥ 0.96 / ≥ 0.97" if half == "held" else ""))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "tala"),
         sys.argv[2] if len(sys.argv) > 2 else
         os.path.join(HERE, "..", "..", "shared", "data", "halueval-qa-dev.jsonl"))
