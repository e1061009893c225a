"""tala testset's offline references on the development sources (issue 53 item 2): for each source
of bench/dev_sources.py, its passages are the documents (one chunk each, as a JSON Lines file of
chunks) and its questions the log; `tala testset --judge offline` drafts a reference for each
question. Every question has a right answer in its own passage, so the figures need no labels
beyond the sources' own:

- answer in reference: the share of items whose reference holds the question's answer (as whole
  words, case and punctuation aside);
- own passage: the share of items whose reference quotes the question's own passage (by its
  text: several questions may share one passage, which the documents then hold once);
- yes precision: of the items marked `answerable: yes`, the share whose reference holds the
  answer (the issue's "yes precision", read mechanically);
- answerable: how many items are yes / partly / no.

The reference drafting has no weights of its own, but the relevance reading it uses is fitted by
bench/judge_sources.py on these same six sources: these figures measure the fit, not the reach.
One command:
    /usr/bin/python3 bench/testset_sources.py [BUILD_DIR]          (default: build)
"""
import collections
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dev_sources  # noqa: E402


def fold(text):
    return re.sub(r"\W+", " ", text.lower()).strip()


def holds(reference, answer):
    a = fold(answer)
    return bool(a) and re.search(r"(?<!\w)" + re.escape(a) + r"(?!\w)", fold(reference)) is not None


def run(tala, items, scratch, name):
    chunks = os.path.join(scratch, name + "-chunks.jsonl")
    logs = os.path.join(scratch, name + "-log.jsonl")
    out = os.path.join(scratch, name + "-candidates.jsonl")
    with open(chunks, "w") as f:
        for it in items:
            f.write(json.dumps({"id": it["id"], "text": it["knowledge"], "source": it["id"]}) + "\n")
    with open(logs, "w") as f:
        for it in items:
            f.write(json.dumps({"id": it["id"], "user_input": it["question"]}) + "\n")
    subprocess.run([tala, "testset", "--logs", logs, "--docs", chunks, "--size", str(len(items)),
                    "--judge", "offline", "--no-progress", "--out", out],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    answer_of = {fold(it["question"]): it["answer"] for it in items}
    own_of = {fold(it["question"]): it["knowledge"] for it in items}
    rows = []
    with open(out) as f:
        for line in f:
            r = json.loads(line)
            if "user_input" not in r:
                continue
            answer = answer_of.get(fold(r["user_input"]))
            if answer is None:
                continue
            rows.append({"own": own_of[fold(r["user_input"])] in r.get("reference_contexts", []),
                         "answerable": r.get("metadata", {}).get("answerable", "?"),
                         "reference": r.get("reference", ""),
                         "answer": answer})
    return rows


def main(build):
    tala = os.path.join(build, "tala")
    print("| source | items | own passage quoted | answer in reference | yes precision | "
          "yes / partly / no |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as scratch:
        for source in dev_sources.SOURCES:
            rows = run(tala, dev_sources.items(source), scratch, source)
            n = len(rows)
            in_ref = sum(holds(r["reference"], r["answer"]) for r in rows)
            own = sum(r["own"] for r in rows)
            yes = [r for r in rows if r["answerable"] == "yes"]
            yes_right = sum(holds(r["reference"], r["answer"]) for r in yes)
            by = collections.Counter(r["answerable"] for r in rows)
            print("| %s | %d | %.3f | %.3f | %s | %d / %d / %d |" % (
                source, n, own / max(1, n), in_ref / max(1, n),
                "%.3f (%d)" % (yes_right / len(yes), len(yes)) if yes else "—",
                by["yes"], by["partly"], by["no"]))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build"))
