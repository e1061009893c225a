"""Fits the offline judge's relevance blends (src/judges/offline/relevance_blend.cc, issue 34) on
the "fit" half of bench/relevance_sets.py's HaluEval pairs (the hand-written relevancy sets are reported beside them),
and prints the weights with the pairwise accuracy of each kind on both halves. Logistic
regressions, each kind weighing the same, by plain gradient descent (numpy only):
- response relevancy, over each text: the lexical reading, its answer-type hit, and the
  encoder's cosines (with the whole question and with what it asks for) apart for fragments and
  sentences, with a fragment's novelty, and a sentence's slot (the question's words next to its
  gap), whether it opens by defining the question's own subject, and whether it is about the
  question at all; fitted on the fit half of the HaluEval kinds only (the hand-written sets are
  reported, as the regression tests they are); then stretched so the fit half's median relevant answer reads 0.9 and its median
  irrelevant one 0.15; then the weight of an answer's sentences not about the question, alone,
  on the answer_padded pairs;
- context relevance, over each pair's difference: the question's focus the context states, the
  share of its words new to the question, the share of its sentences about the question, the
  slot, and the two cosines; stretched so the fit half's median own passage reads 0.9 and its
  median other passage 0.1.
    /usr/bin/python3 bench/fit_relevance.py [BUILD_DIR] [HALUEVAL_JSONL]"""
import collections
import json
import os
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import relevance_sets  # noqa: E402


def features(build, rows):
    text = "".join(json.dumps(r) + "\n" for r in rows)
    out = subprocess.run([os.path.join(build, "bench", "relevance_features")], input=text,
                         capture_output=True, text=True, check=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def response_x(r):
    f = 1.0 if r["fragment"] else 0.0
    c, a = r["cosine"], r["asked_cosine"]
    mismatch = 1.0 if r["typed_question"] and not r["typed"] else 0.0
    return [r["lexical"], 1.0 if r["typed"] else 0.0, f * c, (1 - f) * c, f * a, (1 - f) * a,
            f * r["novelty"], f * mismatch, float(r["form"]), (1 - f) * r["slot"],
            (1 - f) * float(r["defines"]), (1 - f) * r["ontopic"]]


RESPONSE_NAMES = ["lexical", "typed", "fragment x cosine", "sentence x cosine",
                  "fragment x asked cosine", "sentence x asked cosine", "fragment x novelty",
                  "fragment x type mismatch", "form", "sentence x slot",
                  "sentence x defines subject", "sentence x on topic"]


def context_x(r):
    return [r["coverage"], r["cosine"], r["asked_cosine"], r["novelty"], r["ontopic"], r["slot"]]


CONTEXT_NAMES = ["coverage", "cosine", "asked cosine", "novelty", "sentences on topic", "slot"]


def kind_weights(kinds):
    """Each item's weight, so that every kind weighs the same in all (the mean weight is 1)."""
    count = collections.Counter(kinds)
    weight = np.array([1.0 / count[k] for k in kinds])
    return weight * (len(kinds) / weight.sum())


def fit_pairs(rows, x_of):
    """A logistic over each pair's difference (positive minus negative), each kind weighing the
    same: it fits the order within a pair, which is what the pairwise figures measure. No bias
    (a pair's difference has none); the caller's stretch sets the scale."""
    pairs = collections.defaultdict(dict)
    for r in rows:
        pairs[r["metadata"]["pair_id"]][r["metadata"]["label"]] = (r["metadata"]["kind"], x_of(r))
    both = [p for p in pairs.values() if len(p) == 2]
    D = np.array([np.subtract(p["positive"][1], p["negative"][1]) for p in both])
    weight = kind_weights([p["positive"][0] for p in both])
    w = np.zeros(D.shape[1])
    for _ in range(20000):
        g = -(1 / (1 + np.exp(D @ w)) * weight)[:, None] * D
        w -= 0.5 * (g.mean(axis=0) + 1e-3 * w)
    return w, 0.0


def fit(rows, x_of):
    X = np.array([x_of(r) for r in rows])
    y = np.array([1.0 if r["metadata"]["label"] == "positive" else 0.0 for r in rows])
    weight = kind_weights([r["metadata"]["kind"] for r in rows])
    w, b = np.zeros(X.shape[1]), 0.0
    for _ in range(40000):
        g = (1 / (1 + np.exp(-(X @ w + b))) - y) * weight
        w -= 0.5 * (X.T @ g / len(y) + 1e-3 * w)
        b -= 0.5 * g.mean()
    return w, b


def pairwise(rows, score):
    pairs = collections.defaultdict(dict)
    for r in rows:
        pairs[r["metadata"]["pair_id"]][r["metadata"]["label"]] = score(r)
    return sum(1.0 if p["positive"] > p["negative"] else 0.5 if p["positive"] == p["negative"]
               else 0.0 for p in pairs.values()) / max(1, len(pairs))


def report(rows, score):
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r["metadata"]["kind"], r["metadata"]["half"])].append(r)
    for (kind, half), group in sorted(groups.items()):
        pairs = len({r["metadata"]["pair_id"] for r in group})
        print("  %-18s %-4s pairwise %.3f (%d pairs)" % (kind, half, pairwise(group, score), pairs))


def main(build, halueval):
    # The hand-written relevancy sets are regression tests (contrast_set_test.cc), reported
    # here, never fitted on (half "hand"); answer_padded fits only the weight of an answer's
    # sentences about something else.
    made = relevance_sets.build(halueval)
    hand = []
    for name in ("relevancy-dev", "relevancy-second"):
        with open(os.path.join(HERE, "data", name + ".jsonl")) as f:
            for line in f:
                r = json.loads(line)
                r["metadata"] = {"kind": "hand:" + name, "half": "hand", "pair_id": r["pair_id"],
                                 "label": "positive" if r["label"] == "on_topic" else "negative"}
                hand.append(r)
    feats = features(build, made + hand)
    response = [r for r in feats if not r["metadata"]["kind"].startswith("context")
                and r["metadata"]["kind"] != "answer_padded"]
    context = [r for r in feats if r["metadata"]["kind"].startswith("context")]

    # Each kind pulls its own way: the sentence that restates the question outranks the one
    # that answers it by cosine, while a sentence about something else falls below both; fitting
    # the fluent off-topic pairs with the rest keeps both orders.
    fitted = [r for r in response if r["metadata"]["half"] == "fit"]
    w, b = fit(fitted, response_x)
    logit = lambda r: float(np.dot(response_x(r), w) + b)  # noqa: E731
    pos = np.median([logit(r) for r in fitted if r["metadata"]["label"] == "positive"])
    neg = np.median([logit(r) for r in fitted if r["metadata"]["label"] == "negative"])
    to_logit = lambda p: np.log(p / (1 - p))  # noqa: E731
    stretch = (to_logit(0.9) - to_logit(0.15)) / (pos - neg)
    shift = to_logit(0.9) - stretch * pos
    w, b = np.round(w * stretch, 2), round(b * stretch + shift, 2)
    print("response relevancy: bias %.2f" % b)
    for name, value in zip(RESPONSE_NAMES, w):
        print("  %-24s %.2f" % (name, value))
    # The weight of an answer's sentences not about the question (relevance_blend.cc), fitted
    # alone on the fit half's answer_padded pairs with the weights above held: the smallest
    # whole weight with the best fit-half pairwise.
    def padded(r):
        return 1 - r["ontopic"] if r["sentences"] >= 2 and r["ontopic"] > 0 else 0.0

    pads = [r for r in feats if r["metadata"]["kind"] == "answer_padded"]
    best = max(range(0, 9), key=lambda k: (pairwise(
        [r for r in pads if r["metadata"]["half"] == "fit"],
        lambda r: float(np.dot(response_x(r), w) + b) - k * padded(r)), -k))
    print("  %-24s %.2f" % ("padded sentences", -best))
    report(response + pads,
           lambda r: float(np.dot(response_x(r), w) + b) - best * padded(r))

    # Pairwise: fitted pointwise, the three kinds' levels pull against each other (a lone
    # answering sentence reads lower than a whole page), and the sentence pairs' order is lost.
    w, b = fit_pairs([r for r in context if r["metadata"]["half"] == "fit"], context_x)
    # Stretched like response relevancy's, on passages: the fit half's median own passage reads
    # 0.9 and its median passage of the next question 0.1.
    passages = [r for r in context if r["metadata"]["half"] == "fit"
                and r["metadata"]["kind"] == "context_passage"]
    logit = lambda r: float(np.dot(context_x(r), w) + b)  # noqa: E731
    pos = np.median([logit(r) for r in passages if r["metadata"]["label"] == "positive"])
    neg = np.median([logit(r) for r in passages if r["metadata"]["label"] == "negative"])
    stretch = (to_logit(0.9) - to_logit(0.1)) / (pos - neg)
    shift = to_logit(0.9) - stretch * pos
    w, b = np.round(w * stretch, 2), round(b * stretch + shift, 2)
    print("context relevance: bias %.2f" % b)
    for name, value in zip(CONTEXT_NAMES, w):
        print("  %-24s %.2f" % (name, value))
    report(context, lambda r: float(np.dot(context_x(r), w) + b))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build"),
         sys.argv[2] if len(sys.argv) > 2 else
         os.path.join(HERE, "..", "..", "shared", "data", "halueval-qa-dev.jsonl"))
