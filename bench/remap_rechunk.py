"""Evidence that survives a re-chunk (issue 53 item 5), on the development sources of
bench/dev_sources.py: each source's 160 passages become 8 Markdown documents of 20 sections, its
questions the log; `tala testset --size 40` drafts the golden set on tala's own chunking (1,200
bytes), every item is accepted, and `tala testset remap --chunks DOCS --chunk-chars N` moves it
onto chunkings of half and a quarter of that size. For each:

- found: items whose every quote a chunk of the new chunking holds (the issue's target: all);
- same place: quotes whose document and character span are unchanged by the remap (the same
  occurrence of the words, not an earlier one that repeats them);
- the same, with each quote's place removed first (text alone: the remap before quotes kept
  their place);
- recall: id-based context recall of a retriever that returns the new chunks holding the
  evidence (tala eval, no labelling again).

Nothing here is fitted. One command:
    /usr/bin/python3 bench/remap_rechunk.py [BUILD_DIR]          (default: build)
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dev_sources  # noqa: E402


def tala(build, *args):
    return subprocess.run([os.path.join(build, "tala")] + list(args), capture_output=True,
                          text=True)


def write_docs(items, folder):
    os.makedirs(folder)
    for d in range(8):
        with open(os.path.join(folder, "doc%d.md" % d), "w") as f:
            for k, it in enumerate(items[d * 20:(d + 1) * 20]):
                f.write("## Section %d\n\n%s\n\n" % (k + 1, it["knowledge"]))


def places(path):
    out = []
    with open(path) as f:
        for line in f:
            for q in json.loads(line).get("metadata", {}).get("quotes", []):
                out.append((q.get("document"), q.get("start"), q.get("end")))
    return out


def main(build):
    print("| source | items (with quotes) | chunk size | found | same place | same place, text "
          "alone | id-based recall |")
    print("|---|---|---|---|---|---|---|")
    for source in dev_sources.SOURCES:
        items = dev_sources.items(source)
        with tempfile.TemporaryDirectory() as scratch:
            docs = os.path.join(scratch, "docs")
            write_docs(items, docs)
            log = os.path.join(scratch, "log.jsonl")
            with open(log, "w") as f:
                for i, it in enumerate(items):
                    f.write(json.dumps({"id": "q%d" % i, "user_input": it["question"]}) + "\n")
            cand = os.path.join(scratch, "cand.jsonl")
            r = tala(build, "testset", "--logs", log, "--docs", docs, "--size", "40", "--seed",
                     "1", "--no-progress", "-o", cand)
            if r.returncode != 0:
                sys.exit(r.stderr)
            labels = os.path.join(scratch, "labels.jsonl")
            with open(cand) as f, open(labels, "w") as out:
                for line in f:
                    out.write(json.dumps({"id": json.loads(line)["id"], "decision": "accept"})
                              + "\n")
            golden = os.path.join(scratch, "golden.jsonl")
            tala(build, "testset", "accept", cand, "--labels", labels, "-o", golden)
            # The same golden set with every quote's place removed: the remap by text alone.
            bare = os.path.join(scratch, "bare.jsonl")
            with open(golden) as f, open(bare, "w") as out:
                for line in f:
                    row = json.loads(line)
                    for q in row.get("metadata", {}).get("quotes", []):
                        for k in ("document", "start", "end"):
                            q.pop(k, None)
                    out.write(json.dumps(row) + "\n")
            before = places(golden)
            with open(golden) as f:
                rows = [json.loads(line) for line in f]
            quoted = sum(1 for row in rows if row.get("metadata", {}).get("quotes"))
            for size in (600, 300):
                moved = os.path.join(scratch, "moved%d.jsonl" % size)
                r = tala(build, "testset", "remap", golden, "--chunks", docs, "--chunk-chars",
                         str(size), "-o", moved)
                lost = sum(1 for line in r.stdout.splitlines() if line.startswith("  "))
                same = sum(a == b for a, b in zip(before, places(moved)))
                moved_bare = os.path.join(scratch, "bare%d.jsonl" % size)
                tala(build, "testset", "remap", bare, "--chunks", docs, "--chunk-chars",
                     str(size), "-o", moved_bare)
                same_bare = sum(a == b for a, b in zip(before, places(moved_bare)))
                run = os.path.join(scratch, "run%d.jsonl" % size)
                with open(moved) as f, open(run, "w") as out:
                    for line in f:
                        row = json.loads(line)
                        ids = row.get("reference_context_ids") or []
                        if ids:
                            out.write(json.dumps({"id": row["id"], "retrieved_context_ids": ids,
                                                  "reference_context_ids": ids}) + "\n")
                e = tala(build, "eval", run, "-m", "id_based_context_recall", "-q", "--json",
                         "-o", os.path.join(scratch, "results%d.jsonl" % size))
                recall = json.loads(e.stdout)["metrics"][0]["mean"] if e.returncode == 0 \
                    else float("nan")
                print("| %s | %d (%d) | %d | %d of %d | %d of %d | %d of %d | %.3f |" % (
                    source, len(rows), quoted, size, quoted - lost, quoted, same, len(before),
                    same_bare, len(before), recall))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build"))
