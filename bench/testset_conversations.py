#!/usr/bin/env python3
"""tala testset on a log of conversations (issue 54 item 6): do the follow-up questions it keeps
with the questions before them get a reference from the right passage?

    /usr/bin/python3 bench/testset_conversations.py [BUILD_DIR]

Builds a golden set of 60 items from examples/data/conversations.jsonl twice: as the
conversations they are, and with every question of them logged alone (what tala testset read
before it kept sessions). For each item that keeps earlier turns (metadata.earlier_turns), its
first reference chunk is compared with the chunk the example app retrieved for that turn in the
log (the answer's retrieved_context_ids; three of the log's turns are seeded with a wrong chunk,
so this gold is approximate). Prints how many agree either way.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
LOG = os.path.join(ROOT, "examples", "data", "conversations.jsonl")
DOCS = os.path.join(ROOT, "examples", "data", "knowledge_base.jsonl")


def testset(tala, log, out):
    subprocess.run([tala, "testset", "--logs", log, "--docs", DOCS, "--size", "60", "--seed", "1",
                    "-o", out], check=True, capture_output=True)
    with open(out) as f:
        return [json.loads(line) for line in f]


def app_chunk(conversations, log_id):
    """The chunk the app retrieved first for the turn `log_id` ("chat-04#3") names."""
    cid, k = log_id.rsplit("#", 1)
    asked = 0
    messages = conversations[cid]["user_input"]
    for i, m in enumerate(messages):
        if m["type"] != "human":
            continue
        asked += 1
        if asked == int(k):
            answers = [x for x in messages[i + 1:] if x["type"] == "ai"]
            ids = answers[0].get("retrieved_context_ids") if answers else None
            return ids[0] if ids else None
    return None


def main(build):
    tala = os.path.join(build, "tala")
    with open(LOG) as f:
        conversations = {r["id"]: r for r in map(json.loads, f)}
    with tempfile.TemporaryDirectory() as scratch:
        flat = os.path.join(scratch, "flat.jsonl")
        with open(flat, "w") as out:
            for cid, row in conversations.items():
                asked = [m["content"] for m in row["user_input"] if m["type"] == "human"]
                for k, q in enumerate(asked, 1):
                    out.write(json.dumps({"id": "%s#%d" % (cid, k), "user_input": q,
                                          "response": "-"}) + "\n")
        kept = testset(tala, LOG, os.path.join(scratch, "kept.jsonl"))
        alone = {i["user_input"]: i for i in testset(tala, flat, os.path.join(scratch, "a.jsonl"))}
    n = with_before = by_itself = 0
    for item in kept:
        if not item["metadata"].get("earlier_turns") or item["user_input"] not in alone:
            continue
        gold = next((c for c in (app_chunk(conversations, i) for i in item["metadata"]["log_ids"])
                     if c), None)
        first = lambda it: (it.get("reference_context_ids") or [None])[0]  # noqa: E731
        n += 1
        with_before += first(item) == gold
        by_itself += first(alone[item["user_input"]]) == gold
    print("follow-up items (kept with the questions before them): %d" % n)
    print("first reference chunk = the chunk the app retrieved for that turn:")
    print("  drafted for the question as asked after the one before it: %d of %d" % (with_before, n))
    print("  drafted for the question alone (a log without sessions):    %d of %d" % (by_itself, n))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build"))
