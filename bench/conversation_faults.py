#!/usr/bin/env python3
"""How well a judge finds the seeded faults of examples/data/conversations.jsonl, turn by turn.

    build/tala eval examples/data/conversations.jsonl -o /tmp/conv.jsonl
    /usr/bin/python3 bench/conversation_faults.py examples/data/conversations.jsonl /tmp/conv.jsonl

A fault counts as flagged at its turn when the turn shows it:
  hallucination  the turn's faithfulness is below 0.7
  wrong_chunk    the turn's diagnosis blames the retriever
  forgets        the turn's knowledge_retention is 0
  unmet_ask      conversation_completeness is below 1 and its reason names the turn
A turn of a clean conversation is flagged when its diagnosis is not healthy, its
knowledge_retention is 0, or the completeness reason names it. Prints both shares and exits 1
when either is below --floor (default 0.9).
"""
import argparse
import json
import sys

THRESHOLD = 0.7


def turn_flags(row, turn):
    """The faults a results line shows at `turn` (1-based)."""
    t = next(x for x in row["turns"] if x["turn"] == turn)
    s = t["scores"]
    flags = set()
    if s.get("faithfulness") is not None and s["faithfulness"] < THRESHOLD:
        flags.add("hallucination")
    if t.get("diagnosis", "").startswith("retriever"):
        flags.add("wrong_chunk")
    if s.get("knowledge_retention") == 0:
        flags.add("forgets")
    completeness = row["scores"].get("conversation_completeness")
    reason = row["reasons"].get("conversation_completeness", "")
    if completeness is not None and completeness < 1 and ("turn %d " % turn) in reason:
        flags.add("unmet_ask")
    return flags, t.get("diagnosis", "")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("conversations")
    ap.add_argument("results")
    ap.add_argument("--floor", type=float, default=0.9)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    faults = {}
    with open(a.conversations) as f:
        for line in f:
            row = json.loads(line)
            faults[row["id"]] = [(x["turn"], x["kind"]) for x in row["faults"]]
    results = {}
    with open(a.results) as f:
        for line in f:
            row = json.loads(line)
            if "id" in row and "turns" in row:
                results[row["id"]] = row
    found = seeded = clean_ok = clean_turns = 0
    by_kind = {}
    for cid, seeded_faults in faults.items():
        row = results[cid]
        if seeded_faults:
            for turn, kind in seeded_faults:
                flags, diag = turn_flags(row, turn)
                hit = kind in flags
                seeded += 1
                found += hit
                k = by_kind.setdefault(kind, [0, 0])
                k[0] += hit
                k[1] += 1
                if a.verbose and not hit:
                    print("missed", cid, "turn", turn, kind, "->", sorted(flags), diag)
            continue
        for t in row["turns"]:
            flags, diag = turn_flags(row, t["turn"])
            bad = bool(flags) or diag not in ("healthy",)
            clean_turns += 1
            clean_ok += not bad
            if a.verbose and bad:
                print("clean turn flagged", cid, "turn", t["turn"], sorted(flags), diag,
                      json.dumps(t["reasons"])[:400])
    print("seeded faults flagged at their turn: %d of %d (%.2f)" % (found, seeded, found / seeded))
    for kind, (hit, n) in sorted(by_kind.items()):
        print("  %-14s %d of %d" % (kind, hit, n))
    print("clean turns with no fault flagged:  %d of %d (%.2f)"
          % (clean_ok, clean_turns, clean_ok / clean_turns))
    ok = found / seeded >= a.floor and clean_ok / clean_turns >= a.floor
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
