"""Fits the offline judge's relevance blends (src/judges/offline/relevance_blend.cc, issue 34) on
the "fit" half of bench/relevance_sets.py's HaluEval pairs (the hand-written relevancy sets are reported beside them),
and prints the weights with the pairwise accuracy of each kind on both halves. Logistic
regressions, each kind weighing the same, by Newton's method (numpy only):
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
            (1 - f) * float(r["defines"]), (1 - f) * r["ontopic"]] + parts_x(r)


def parts_x(r):
    """A question of several parts (question_parts.h): whether it has them, and the mean of its
    parts' scores (each part's best-answering sentence)."""
    several = 1.0 if r.get("parts", 1) > 1 else 0.0
    return [several, several * r.get("parts_mean", 1.0)]


RESPONSE_NAMES = ["lexical", "typed", "fragment x cosine", "sentence x cosine",
                  "fragment x asked cosine", "sentence x asked cosine", "fragment x novelty",
                  "fragment x type mismatch", "form", "sentence x slot",
                  "sentence x defines subject", "sentence x on topic", "several parts",
                  "several parts x mean part score"]


def context_x(r):
    return [r["coverage"], r["cosine"], r["asked_cosine"], r["novelty"], r["ontopic"], r["slot"],
            r.get("bearing", 0.0)]


CONTEXT_NAMES = ["coverage", "cosine", "asked cosine", "novelty", "sentences on topic", "slot",
                 "sentences bearing on the question"]


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
    # Each pair's difference as a positive example of a logistic with no bias.
    return newton(D, np.ones(len(D)), weight, bias=False)


def newton(X, y, weight, bias=True, l2=1e-3):
    """Weighted L2-regularised logistic regression (the mean weighted log loss plus l2/2 |w|^2,
    the bias unregularised) by Newton's method: the same optimum gradient descent reaches, in
    a few steps. Returns (w, b)."""
    A = np.hstack([X, np.ones((len(X), 1))]) if bias else X
    theta = np.zeros(A.shape[1])
    reg = np.full(A.shape[1], l2)
    if bias:
        reg[-1] = 0.0
    for _ in range(50):
        p = 1 / (1 + np.exp(-(A @ theta)))
        g = A.T @ ((p - y) * weight) / len(y) + reg * theta
        H = (A.T * (p * (1 - p) * weight)) @ A / len(y) + np.diag(reg) + 1e-9 * np.eye(len(theta))
        step = np.linalg.solve(H, g)
        theta -= step
        if np.abs(step).max() < 1e-10:
            break
    return (theta[:-1], float(theta[-1])) if bias else (theta, 0.0)


def fit(rows, x_of):
    X = np.array([x_of(r) for r in rows])
    y = np.array([1.0 if r["metadata"]["label"] == "positive" else 0.0 for r in rows])
    return newton(X, y, kind_weights([r["metadata"]["kind"] for r in rows]))


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


def to_logit(p):
    return float(np.log(p / (1 - p)))


def padded(r):
    """The share of an answer's sentences not about the question, when some are (see
    relevance_blend.cc)."""
    return 1 - r["ontopic"] if r["sentences"] >= 2 and r["ontopic"] > 0 else 0.0


def fit_response(feats, quiet=True):
    """Response relevancy's blend fitted on `feats` (every response kind but answer_padded, then
    the padded weight alone on answer_padded): (weights, bias, padded weight), rounded as
    committed. Fitted on the order within pairs, which is what the figures measure (it held
    better on left-out sources than a fit on each text: bare answer 0.90 against 0.86, answering
    sentence 0.81 against 0.80, next answer 0.80 against 0.81); then stretched so the median
    answering sentence reads 0.85 and the median fluent sentence about something else 0.05."""
    response = [r for r in feats if not r["metadata"]["kind"].startswith("context")
                and r["metadata"]["kind"] != "answer_padded"]
    w, b = fit_pairs(response, response_x)
    logit = lambda r: float(np.dot(response_x(r), w) + b)  # noqa: E731
    # The scale: an answering sentence's median reads 0.85 and a fluent sentence about something
    # else 0.05 (the offtopic_sentence pairs), so on-topic and off-topic answers read as such.
    anchor = [r for r in response if r["metadata"]["kind"] == "offtopic_sentence"]
    pos = np.median([logit(r) for r in anchor if r["metadata"]["label"] == "positive"])
    neg = np.median([logit(r) for r in anchor if r["metadata"]["label"] == "negative"])
    stretch = (to_logit(0.85) - to_logit(0.05)) / (pos - neg)
    shift = to_logit(0.85) - stretch * pos
    w, b = np.round(w * stretch, 2), round(b * stretch + shift, 2)
    # The weight of an answer's sentences not about the question, fitted alone with the weights
    # above held: the smallest whole weight with the best pairwise.
    pads = [r for r in feats if r["metadata"]["kind"] == "answer_padded"]
    best = max(range(0, 21), key=lambda k: (pairwise(
        pads, lambda r: float(np.dot(response_x(r), w) + b) - k * padded(r)), -k))
    return w, b, float(best)


def response_score(model):
    w, b, pad = model
    return lambda r: float(1 / (1 + np.exp(-(np.dot(response_x(r), w) + b - pad * padded(r)))))


def fit_context(feats):
    """Context relevance's blend fitted pairwise on `feats`' context kinds (pointwise, the kinds'
    levels pull against each other: a lone answering sentence reads lower than a whole page),
    stretched so the median own passage reads 0.9 and the median passage of the next question
    0.1."""
    context = [r for r in feats if r["metadata"]["kind"].startswith("context")]
    w, b = fit_pairs(context, context_x)
    passages = [r for r in context if r["metadata"]["kind"] == "context_passage"]
    logit = lambda r: float(np.dot(context_x(r), w) + b)  # noqa: E731
    pos = np.median([logit(r) for r in passages if r["metadata"]["label"] == "positive"])
    neg = np.median([logit(r) for r in passages if r["metadata"]["label"] == "negative"])
    stretch = (to_logit(0.9) - to_logit(0.1)) / (pos - neg)
    shift = to_logit(0.9) - stretch * pos
    return np.round(w * stretch, 2), round(b * stretch + shift, 2)


def context_score(model):
    w, b = model
    return lambda r: float(1 / (1 + np.exp(-(np.dot(context_x(r), w) + b))))


def main(build, halueval):
    # The hand-written relevancy sets are regression tests (contrast_set_test.cc), reported
    # here, never fitted on (half "hand").
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
    fitted = [r for r in feats if r["metadata"]["half"] == "fit"]
    w, b, pad = fit_response(fitted)
    print("response relevancy: bias %.2f" % b)
    for name, value in zip(RESPONSE_NAMES, w):
        print("  %-24s %.2f" % (name, value))
    print("  %-24s %.2f" % ("padded sentences", -pad))
    report([r for r in feats if not r["metadata"]["kind"].startswith("context")],
           response_score((w, b, pad)))
    w, b = fit_context(fitted)
    print("context relevance: bias %.2f" % b)
    for name, value in zip(CONTEXT_NAMES, w):
        print("  %-24s %.2f" % (name, value))
    report([r for r in feats if r["metadata"]["kind"].startswith("context")],
           context_score((w, b)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build"),
         sys.argv[2] if len(sys.argv) > 2 else
         os.path.join(HERE, "..", "..", "shared", "data", "halueval-qa-dev.jsonl"))
