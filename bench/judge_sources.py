"""The offline judge across sources (issue 52): every pair kind on every development source of
bench/dev_sources.py, each figure on a source the blend was not fitted on (leave one source out).

For each source S, the relevance blends (bench/fit_relevance.py's response and context models)
are fitted on the pairs of every other source and scored on S's; the table prints that figure
per kind and source, and the mean over sources. Faithfulness has no fitted weights: its figures
are `tala eval --judge offline` as built, on one-detail edits of each source's evidence
sentences, and on FEVER's claims (worded unlike their evidence) with one edit. Last, the weights
fitted on all sources: what src/judges/offline/relevance_blend.cc holds.

Pairwise accuracy counts a tie as half. One command (--features=F keeps the judge's readings of
every pair in F and reads them from there the next time, for refitting without re-reading):
    /usr/bin/python3 bench/judge_sources.py [BUILD_DIR] [--features=F]   (default: build)
"""
import collections
import json
import os
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dev_sources  # noqa: E402
import fit_relevance  # noqa: E402
import minimal_edits  # noqa: E402
import relevance_sets  # noqa: E402

GOALS = {
    "next_answer": "≥ 0.93", "answer_sentence": "≥ 0.85", "bare_answer": "≥ 0.90",
    "offtopic_sentence": "pairwise ≥ 0.92", "multipart": "≥ 0.85", "answer_padded": "",
    "pronoun_answer": "",
    "context_passage": "≥ 0.95", "context_padded": "≥ 0.85", "context_sentence": "",
    "context_window": "≥ 0.85",
    "negation": "≥ 0.90", "value": "≥ 0.90", "roles": "≥ 0.90",
    "claim_negation": "≥ 0.90", "claim_value": "≥ 0.90", "claim_roles": "≥ 0.90",
}
RESPONSE_KINDS = ["next_answer", "answer_sentence", "bare_answer", "offtopic_sentence", "multipart",
                  "pronoun_answer", "answer_padded"]
CONTEXT_KINDS = ["context_passage", "context_padded", "context_window", "context_sentence"]


def pairwise(rows, score):
    pairs = collections.defaultdict(dict)
    for r in rows:
        pairs[r["metadata"]["pair_id"]][r["metadata"]["label"]] = score(r)
    both = [p for p in pairs.values() if len(p) == 2]
    wins = sum(1.0 if p["positive"] > p["negative"] else 0.5 if p["positive"] == p["negative"]
               else 0.0 for p in both)
    return wins / len(both) if both else float("nan"), len(both)


def relevance_rows():
    rows = []
    for source in dev_sources.SOURCES:
        rows += relevance_sets.build_items(dev_sources.items(source), lambda i, s=source: s)
    return rows


def table(title, kinds, sources, cell):
    print("\n| %s | %s | mean | goal |" % (title, " | ".join(sources)))
    print("|---" * (len(sources) + 3) + "|")
    for kind in kinds:
        values = [cell(kind, s) for s in sources]
        shown = ["%.3f (%d)" % v if v[1] else "—" for v in values]
        mean = np.mean([v[0] for v in values if v[1]]) if any(v[1] for v in values) else float("nan")
        print("| %s | %s | %.3f | %s |" % (kind, " | ".join(shown), mean, GOALS.get(kind, "")))


def as_built(tala, feats, score):
    """response_relevancy as `tala eval --judge offline` scores each response row, against the
    score this script's all-source model gives it: the two must agree (relevance_blend.cc holds
    the weights printed below). Their fit, not their reach: every source was fitted on."""
    from offline_trust import evaluate  # noqa: E402
    rows = [r for r in relevance_rows() if "response" in r]
    with tempfile.TemporaryDirectory() as scratch:
        built = evaluate(tala, rows, "response_relevancy", scratch, "built")
    by_id = {r["id"]: r for r in feats}
    gaps = [abs(built[r["id"]] - score(by_id[r["id"]])) for r in rows
            if built.get(r["id"]) is not None and r["id"] in by_id]
    print("\ntala eval's response_relevancy against this script's model fitted on all sources: "
          "%d rows, largest difference %.4f%s" % (len(gaps), max(gaps),
                                                  "" if max(gaps) < 0.01 else
                                                  " (relevance_blend.cc holds other weights)"))


def main(build, cache=None):
    if cache and os.path.exists(cache):
        with open(cache) as f:
            feats = json.load(f)
    else:
        feats = fit_relevance.features(build, relevance_rows())
        if cache:
            with open(cache, "w") as f:
                json.dump(feats, f)
    by_source = collections.defaultdict(list)
    for r in feats:
        by_source[r["metadata"]["half"]].append(r)
    sources = dev_sources.SOURCES
    held = {}  # source -> (response score, context score) fitted without it
    for s in sources:
        rest = [r for o in sources if o != s for r in by_source[o]]
        held[s] = (fit_relevance.response_score(fit_relevance.fit_response(rest)),
                   fit_relevance.context_score(fit_relevance.fit_context(rest)))

    def cell(kind, s):
        rows = [r for r in by_source[s] if r["metadata"]["kind"] == kind]
        score = held[s][1] if kind.startswith("context") else held[s][0]
        return pairwise(rows, score)

    print("# The offline judge, leave one source out (pairwise; pairs in brackets)")
    table("relevance kind \\ left-out source", RESPONSE_KINDS + CONTEXT_KINDS, sources, cell)
    print("\nFluent off-topic answers (offtopic_sentence), mean score when left out:")
    for s in sources:
        rows = [r for r in by_source[s] if r["metadata"]["kind"] == "offtopic_sentence"]
        on = [held[s][0](r) for r in rows if r["metadata"]["label"] == "positive"]
        off = [held[s][0](r) for r in rows if r["metadata"]["label"] == "negative"]
        print("  %-9s on-topic %.2f (goal ≥ 0.70), off-topic %.2f (goal ≤ 0.25)"
              % (s, np.mean(on), np.mean(off)))

    from offline_trust import evaluate  # noqa: E402  (imports this module's siblings)
    tala = os.path.join(build, "tala")
    edits, claims = [], []
    for s in sources:
        edits += minimal_edits.build_items(dev_sources.items(s), lambda i, s=s: s)
    for s in dev_sources.CLAIM_SOURCES:
        claims += minimal_edits.build_claims(dev_sources.items(s), lambda i, s=s: s)
    with tempfile.TemporaryDirectory() as scratch:
        scores = evaluate(tala, edits + claims, "faithfulness", scratch, "edits")
    score = lambda r: scores.get(r["id"]) or 0.0  # noqa: E731

    def edit_cell(kind, s):
        return pairwise([r for r in edits + claims
                         if r["metadata"]["kind"] == kind and r["metadata"]["half"] == s], score)

    table("faithfulness edit \\ source", list(minimal_edits.EDITS), sources, edit_cell)
    table("claim edit \\ source", ["claim_" + k for k in minimal_edits.EDITS],
          dev_sources.CLAIM_SOURCES, edit_cell)

    model = fit_relevance.fit_response(feats)
    as_built(tala, feats, fit_relevance.response_score(model))
    w, b, pad = model
    print("\nWeights fitted on all sources, as src/judges/offline/relevance_blend.cc holds them:")
    print("constexpr double kResponseBias = %.2f;" % b)
    for name, value in zip(fit_relevance.RESPONSE_NAMES, w):
        print("    %.2f,  // %s" % (value, name))
    print("constexpr double kPaddedWeight = %.2f;" % -pad)
    w, b = fit_relevance.fit_context(feats)
    print("constexpr double kContextBias = %.2f;" % b)
    for name, value in zip(fit_relevance.CONTEXT_NAMES, w):
        print("    %.2f,  // %s" % (value, name))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--features=")]
    cache = [a.split("=", 1)[1] for a in sys.argv[1:] if a.startswith("--features=")]
    main(args[0] if args else os.path.join(HERE, "..", "build"), cache[0] if cache else None)
