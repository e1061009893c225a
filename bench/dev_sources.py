"""The offline judge's development sources (issue 52): labelled question/passage/answer items from
several public sources of different domains and shapes, so every figure can be reported on a
source the judge was not fitted on (leave one source out).

Sources, each a list of items {source, id, question, knowledge, answer} (answer: the short right
answer, checked to be in the knowledge for the relevance kinds) and, for claim sources, items
{source, id, claim, knowledge, supported}:

| source   | domain and shape                                      | from |
|----------|-------------------------------------------------------|------|
| halueval | Wikipedia, multi-hop questions, short answers         | ../shared/data/halueval-qa-dev.jsonl (never beyond it) |
| hotpotqa | Wikipedia, two-paragraph multi-hop questions          | ARES synthetic queries |
| nq       | Wikipedia, questions as people search                 | ARES synthetic queries |
| multirc  | fiction, news, science, law: multi-sentence passages  | ARES synthetic queries |
| record   | CNN/Daily Mail news, cloze and wh- questions          | ARES synthetic queries |
| wow      | Wikipedia passages from dialogue grounding            | ARES synthetic queries |
| fever    | claims against Wikipedia evidence (claim source)      | ARES synthetic queries |

ARES: https://github.com/stanford-futuredata/ARES (Apache-2.0), commit
c7c9018a755faf8347c4da415632bae1593ef104, datasets/synthetic_queries/<name>_synthetic_queries.zip:
rows with Context_Relevance_Label "Yes" and Answer_Faithfulness_Label "Yes" are a query, its own
document and a right answer. The passages come from the original sets (Wikipedia, CNN/Daily
Mail, MultiRC's sources; CC BY-SA and their own terms); a sample of 160 items a source is kept in
bench/data/sources/ (`extract` writes it), enough to fit and report on, small enough to commit.

Never used, in any copy (kept for outside measurement): WikiEval, HaluEval beyond
../shared/data, RAGTruth, the e-Manual QA data of "Question Answering over Electronic Devices".

    /usr/bin/python3 bench/dev_sources.py extract ARES_GIT_DIR   # rewrites bench/data/sources/
"""
import csv
import gzip
import hashlib
import io
import json
import os
import re
import subprocess
import sys
import zipfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "sources")
SHARED = os.path.join(HERE, "..", "..", "shared", "data", "halueval-qa-dev.jsonl")
ARES_COMMIT = "c7c9018a755faf8347c4da415632bae1593ef104"
ARES_SOURCES = ["hotpotqa", "nq", "multirc", "record", "wow"]
CLAIM_SOURCES = ["fever"]
SOURCES = ["halueval"] + ARES_SOURCES
PER_SOURCE = 160


def fold(text):
    return re.sub(r"\W+", " ", text.lower()).strip()


def _stable(key):
    return hashlib.sha256(key.encode()).hexdigest()


def _ares_rows(git_dir, name):
    blob = subprocess.run(["git", "--git-dir", git_dir, "show",
                           "%s:datasets/synthetic_queries/%s_synthetic_queries.zip" % (ARES_COMMIT, name)],
                          capture_output=True, check=True).stdout
    with zipfile.ZipFile(io.BytesIO(blob)) as z:
        member = [n for n in z.namelist() if n.endswith(".tsv")][0]
        text = z.read(member).decode("utf-8")
    csv.field_size_limit(1 << 30)
    return list(csv.DictReader(io.StringIO(text), delimiter="\t"))


def _answer_in(answer, knowledge):
    a = fold(answer)
    return len(a) >= 1 and len(a.split()) <= 8 and re.search(r"(?<!\w)" + re.escape(a) + r"(?!\w)",
                                                              fold(knowledge))


def extract(git_dir):
    os.makedirs(DATA, exist_ok=True)
    for name in ARES_SOURCES + CLAIM_SOURCES:
        rows = [r for r in _ares_rows(git_dir, name)
                if r["Context_Relevance_Label"] == "Yes" and r["Answer_Faithfulness_Label"] == "Yes"]
        items, seen = [], set()
        for r in sorted(rows, key=lambda r: _stable(name + r["synthetic_query"])):
            q, doc, ans = r["synthetic_query"].strip(), r["document"].strip(), r["generated_answer"].strip()
            if q in seen or len(doc) > 2500:
                continue
            if name in CLAIM_SOURCES:
                if ans not in ("SUPPORTS", "REFUTES"):
                    continue
                item = {"claim": q, "knowledge": doc, "supported": ans == "SUPPORTS"}
            else:
                if not q.endswith("?") or not _answer_in(ans, doc):
                    continue
                item = {"question": q, "knowledge": doc, "answer": ans.rstrip(".")}
            seen.add(q)
            item = {"source": name, "id": "%s-%03d" % (name, len(items)), **item}
            items.append(item)
            if len(items) == PER_SOURCE:
                break
        with gzip.open(os.path.join(DATA, name + ".jsonl.gz"), "wt", encoding="utf-8") as f:
            for item in items:
                f.write(json.dumps(item, ensure_ascii=False, sort_keys=True) + "\n")
        print("%-8s %d items" % (name, len(items)), file=sys.stderr)


def halueval(path=SHARED):
    """HaluEval's questions of ../shared/data, read as bench/relevance_sets.py reads them."""
    import relevance_sets  # noqa: E402  (it imports nothing of this module)
    return [{"source": "halueval", "id": "halueval-%03d" % i, **item}
            for i, item in enumerate(relevance_sets.questions(path))]


def items(source):
    """The items of one source, in a fixed order."""
    if source == "halueval":
        return halueval()
    with gzip.open(os.path.join(DATA, source + ".jsonl.gz"), "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "extract":
        extract(sys.argv[2])
    else:
        sys.exit(__doc__)
