"""Minimal-edit pairs for the offline judge's substitution check (structure_check.h, check 5),
made mechanically from HaluEval's knowledge: each knowledge sentence with a lower-case word after
a preposition ("... for adults", "... in the suburbs") is the faithful response, and the same
sentence with that word replaced by the word in the same kind of slot of the next question's
knowledge is the flipped one; the context is the question's own knowledge. Prints how often the
faithful sentence is supported (>= 0.5), how often the flipped one is refuted (< 0.5), and how
often the check's reason is the cause.
    /usr/bin/python3 bench/substitution_pairs.py [TALA] [HALUEVAL_JSONL]"""
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import relevance_sets  # noqa: E402
from spread_reference import sentences  # noqa: E402

SLOT = re.compile(r"\b(for|to|from|with|in|on|at|by|into|of) (?:(?:the|a|an) )?([a-z]{4,})\b")


def pairs(halueval):
    items = relevance_sets.questions(halueval)
    out = []
    for i, item in enumerate(items):
        following = items[(i + 1) % len(items)]["knowledge"]
        for s in sentences(item["knowledge"]):
            m = SLOT.search(s)
            if not m:
                continue
            other = [o for o in SLOT.finditer(following)
                     if o.group(1) == m.group(1) and o.group(2) != m.group(2)
                     and o.group(2) not in item["knowledge"].lower()]
            if not other:
                continue
            flipped = s[:m.start(2)] + other[0].group(2) + s[m.end(2):]
            base = {"user_input": item["question"], "retrieved_contexts": [item["knowledge"]]}
            out.append((dict(base, id="sub-%03d-pos" % i, response=s),
                        dict(base, id="sub-%03d-neg" % i, response=flipped)))
            break
    return out


def main(tala, halueval):
    made = pairs(halueval)
    with tempfile.TemporaryDirectory() as scratch:
        data, out = os.path.join(scratch, "pairs.jsonl"), os.path.join(scratch, "r.jsonl")
        with open(data, "w") as f:
            for a, b in made:
                f.write(json.dumps(a) + "\n" + json.dumps(b) + "\n")
        subprocess.run([tala, "eval", data, "-m", "faithfulness", "-q", "--no-progress", "-o", out],
                       check=True, stdout=subprocess.DEVNULL)
        rows = {}
        with open(out) as f:
            for line in f:
                r = json.loads(line)
                if "scores" in r:
                    rows[r["id"]] = r
    kept = sum(1 for a, _ in made if (rows[a["id"]]["scores"]["faithfulness"] or 0) >= 0.5)
    refuted = sum(1 for _, b in made if (rows[b["id"]]["scores"]["faithfulness"] or 0) < 0.5)
    by_rule = sum(1 for _, b in made if "substitution" in json.dumps(rows[b["id"]]["verdicts"]))
    falsely = sum(1 for a, _ in made if "substitution" in json.dumps(rows[a["id"]]["verdicts"]))
    print("%d pairs: faithful supported %d, flipped refuted %d (%d by the substitution check), "
          "faithful refuted by it %d" % (len(made), kept, refuted, by_rule, falsely))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "tala"),
         sys.argv[2] if len(sys.argv) > 2 else
         os.path.join(HERE, "..", "..", "shared", "data", "halueval-qa-dev.jsonl"))
