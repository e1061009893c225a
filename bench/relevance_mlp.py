#!/usr/bin/env python3
"""An experiment of issue 52, kept to be repeated: would a small learned model over the offline
judge's readings hold better on left-out sources than the linear blend relevance_blend.cc holds?

    /usr/bin/python3 bench/judge_sources.py build --features=/tmp/features.json   # the readings
    /usr/bin/python3 bench/relevance_mlp.py /tmp/features.json

For each development source left out, three scorers are fitted on the other five and their
pairwise accuracy printed per response kind (a tie counts half):
  linear   the shipped blend (bench/fit_relevance.py's response fit);
  mlp      a one-hidden-layer network (16 tanh units, L2 3e-3, 600 Adam steps, seed 0) over the
           raw readings, fitted on the order within pairs (RankNet's loss), kinds weighing alike;
  residual the linear blend plus such a network (8 units, L2 1e-3) that only short answers
           (fragments) read, the linear weights held: sentences score as shipped.
numpy only; deterministic.
"""
import collections
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fit_relevance as fr  # noqa: E402

SOURCES = ["halueval", "hotpotqa", "nq", "multirc", "record", "wow"]
KINDS = ["next_answer", "answer_sentence", "bare_answer", "offtopic_sentence", "multipart",
         "pronoun_answer", "answer_padded"]


def raw_x(r):
    f = 1.0 if r["fragment"] else 0.0
    mismatch = 1.0 if r["typed_question"] and not r["typed"] else 0.0
    several = 1.0 if r.get("parts", 1) > 1 else 0.0
    return [r["lexical"], float(r["typed"]), f, r["cosine"], r["asked_cosine"], r["novelty"],
            mismatch, float(r["form"]), r["slot"], float(r["defines"]), r["ontopic"], several,
            several * r.get("parts_mean", 1.0), math.log1p(r["words"]),
            min(r["sentences"], 5) / 5, r["coverage"], r.get("bearing", 0.0),
            float(r["typed_question"]), fr.padded(r), several * r.get("weakest_part", 1.0)]


def pairs_of(rows):
    p = collections.defaultdict(dict)
    for r in rows:
        p[r["metadata"]["pair_id"]][r["metadata"]["label"]] = r
    return [(v["positive"], v["negative"]) for v in p.values() if len(v) == 2]


def fit_net(pairs, hidden, l2, base=None, only_fragments=False, steps=600, lr=0.01, seed=0):
    """score(r) = base(r) + gate(r) * net(raw_x(r)), net fitted on the pairs' order."""
    xp = np.array([raw_x(p) for p, _ in pairs])
    xn = np.array([raw_x(n) for _, n in pairs])
    bp = np.array([base(p) if base else 0.0 for p, _ in pairs])
    bn = np.array([base(n) if base else 0.0 for _, n in pairs])
    gp = xp[:, 2].copy() if only_fragments else np.ones(len(xp))
    gn = xn[:, 2].copy() if only_fragments else np.ones(len(xn))
    w = fr.kind_weights([p["metadata"]["kind"] for p, _ in pairs])
    both = np.concatenate([xp, xn])
    mu, sd = both.mean(0), both.std(0) + 1e-6
    xp, xn = (xp - mu) / sd, (xn - mu) / sd
    rng = np.random.default_rng(seed)
    w1 = rng.normal(0, 1 / np.sqrt(xp.shape[1]), (xp.shape[1], hidden))
    b1 = np.zeros(hidden)
    w2 = np.zeros(hidden) if base else rng.normal(0, 1 / np.sqrt(hidden), hidden)
    params = [w1, b1, w2]
    m = [np.zeros_like(q) for q in params]
    v = [np.zeros_like(q) for q in params]
    for t in range(1, steps + 1):
        hp, hn = np.tanh(xp @ w1 + b1), np.tanh(xn @ w1 + b1)
        s = bp + gp * (hp @ w2) - bn - gn * (hn @ w2)
        g = -w / (1 + np.exp(s)) / len(s)
        ap, an = g * gp, -g * gn
        grads = [xp.T @ (np.outer(ap, w2) * (1 - hp ** 2)) + xn.T @ (np.outer(an, w2) * (1 - hn ** 2))
                 + l2 * w1,
                 (np.outer(ap, w2) * (1 - hp ** 2)).sum(0) + (np.outer(an, w2) * (1 - hn ** 2)).sum(0),
                 hp.T @ ap + hn.T @ an + l2 * w2]
        for i, (q, dq) in enumerate(zip(params, grads)):
            m[i] = 0.9 * m[i] + 0.1 * dq
            v[i] = 0.999 * v[i] + 0.001 * dq * dq
            q -= lr * (m[i] / (1 - 0.9 ** t)) / (np.sqrt(v[i] / (1 - 0.999 ** t)) + 1e-8)

    def score(r):
        x = (np.array(raw_x(r)) - mu) / sd
        gate = raw_x(r)[2] if only_fragments else 1.0
        return (base(r) if base else 0.0) + gate * float(np.tanh(x @ w1 + b1) @ w2)
    return score


def pairwise(pairs, score):
    return float(np.mean([1.0 if score(p) > score(n) else 0.5 if score(p) == score(n) else 0.0
                          for p, n in pairs])) if pairs else float("nan")


def main(path):
    with open(path) as f:
        rows = [r for r in json.load(f) if r["metadata"]["kind"] in KINDS]
    table = collections.defaultdict(dict)
    for s in SOURCES:
        train = [r for r in rows if r["metadata"]["half"] != s]
        test = pairs_of([r for r in rows if r["metadata"]["half"] == s])
        w, b, pad = fr.fit_response(train)
        linear = lambda r: float(np.dot(fr.response_x(r), w) + b - pad * fr.padded(r))  # noqa
        train_pairs = pairs_of(train)
        scorers = {"linear": linear,
                   "mlp": fit_net(train_pairs, 16, 3e-3),
                   "residual": fit_net(train_pairs, 8, 1e-3, base=linear, only_fragments=True)}
        for name, score in scorers.items():
            for kind in KINDS:
                table[(name, kind)][s] = pairwise(
                    [(p, n) for p, n in test if p["metadata"]["kind"] == kind], score)
    print("| scorer | kind | %s | mean |" % " | ".join(SOURCES))
    print("|---" * (len(SOURCES) + 3) + "|")
    for name in ["linear", "mlp", "residual"]:
        for kind in KINDS:
            values = [table[(name, kind)][s] for s in SOURCES]
            print("| %s | %s | %s | %.3f |" % (name, kind, " | ".join("%.3f" % v for v in values),
                                                 np.nanmean(values)))


if __name__ == "__main__":
    main(sys.argv[1])
