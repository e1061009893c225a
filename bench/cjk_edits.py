"""One-detail edits in Japanese and Chinese (issue 52 item 7), on sources the offline judge was
never fitted on: JSQuAD (yahoojapan/JGLUE, Japanese Wikipedia) and CMRC 2018 (ymcui/cmrc2018,
Chinese Wikipedia). For each paragraph's first question whose
answer span is found in its context, the faithful response is the sentence that holds the answer
(verbatim) and the edited one that sentence with the answer replaced:

- outside: by the answer of another paragraph's question, which this context does not hold
  (a value or name the context lacks: the character-run check of cjk_values.h);
- inside:  by the answer of another question about the same paragraph (a value moved within the
  context: the structure checks, which read English, are off, so the row's reason must say what
  was not checked).

And JNLI (the same repository: image captions, a premise and a hypothesis labelled entailment,
contradiction or neutral): the premise as the context and the hypothesis as the response, so
the share of entailed hypotheses read supported measures what a Japanese paraphrase costs.

Prints, per kind: pairwise accuracy of `tala eval --judge offline --metrics faithfulness` (a tie
counts half), how many edited responses still read supported (0.5 or more), of those how many
say "not checked", and how many faithful responses read supported. Nothing here is fitted.

    /usr/bin/python3 bench/cjk_edits.py [BUILD_DIR]          (default: build)
    /usr/bin/python3 bench/cjk_edits.py extract JGLUE_GIT_DIR CMRC2018_GIT_DIR
                                                 (rewrites the committed samples)
"""
import collections
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLE = os.path.join(HERE, "data", "sources", "jsquad.jsonl.gz")
ZH_SAMPLE = os.path.join(HERE, "data", "sources", "cmrc2018.jsonl.gz")
NLI_SAMPLE = os.path.join(HERE, "data", "sources", "jnli.jsonl.gz")
PARAGRAPHS = 400
NLI_PAIRS = 600


def squad_sample(git_dir, path, target, count=PARAGRAPHS):
    """`count` paragraphs of a SQuAD-style file, chosen by a hash of each paragraph's first
    question id, with their questions and first answers (JSQuAD's "title [SEP] " prefix cut)."""
    text = subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:" + path],
                          capture_output=True, check=True).stdout
    out = []
    for article in json.loads(text)["data"]:
        for p in article["paragraphs"]:
            context = p["context"]
            cut = context.find(" [SEP] ")
            skip = cut + len(" [SEP] ") if cut >= 0 else 0
            qas = [{"question": q["question"], "answer": q["answers"][0]["text"],
                    "start": q["answers"][0]["answer_start"] - skip} for q in p["qas"]]
            out.append({"id": p["qas"][0]["id"], "context": context[skip:], "qas": qas})
    out.sort(key=lambda p: hashlib.sha256(p["id"].encode()).hexdigest())
    out = sorted(out[:count], key=lambda p: p["id"])
    with gzip.open(target, "wt", encoding="utf-8") as f:
        for p in out:
            f.write(json.dumps(p, ensure_ascii=False) + "\n")


def extract(jglue, cmrc):
    """The committed samples: JSQuAD and CMRC 2018 paragraphs, and NLI_PAIRS of JNLI."""
    squad_sample(jglue, "datasets/jsquad-v1.3/valid-v1.3.json", SAMPLE)
    squad_sample(cmrc, "squad-style-data/cmrc2018_dev.json", ZH_SAMPLE, 160)
    git_dir = jglue
    text = subprocess.run(["git", "--git-dir", git_dir, "show",
                           "HEAD:datasets/jnli-v1.3/valid-v1.3.json"],
                          capture_output=True, check=True).stdout.decode("utf-8")
    nli = [json.loads(line) for line in text.splitlines() if line.strip()]
    nli.sort(key=lambda r: hashlib.sha256(r["sentence_pair_id"].encode()).hexdigest())
    nli = sorted(nli[:NLI_PAIRS], key=lambda r: int(r["sentence_pair_id"]))
    with gzip.open(NLI_SAMPLE, "wt", encoding="utf-8") as f:
        for r in nli:
            f.write(json.dumps({k: r[k] for k in ("sentence_pair_id", "sentence1", "sentence2",
                                                  "label")}, ensure_ascii=False) + "\n")


def sentence_at(context, at):
    begin = max(context.rfind(mark, 0, at) for mark in "。！？") + 1
    ends = [e for e in (context.find(mark, at) for mark in "。！？") if e >= 0]
    return begin, min(ends) + 1 if ends else len(context)


def pairs(paragraphs, source):
    rows = []
    for k, p in enumerate(paragraphs):
        context = p["context"]
        qas = [q for q in p["qas"]
               if q["start"] >= 0 and context[q["start"]:q["start"] + len(q["answer"])] == q["answer"]]
        if not qas:
            continue
        first = qas[0]
        begin, end = sentence_at(context, first["start"])
        sentence = context[begin:end]
        if not 8 <= len(sentence) <= 120:
            continue
        at = first["start"] - begin
        answer = first["answer"]
        inside = [q["answer"] for q in qas[1:] if q["answer"] != answer and
                  q["answer"] not in sentence and answer not in q["answer"]]
        other = paragraphs[(k + 37) % len(paragraphs)]["qas"]
        outside = [q["answer"] for q in other if q["answer"] not in context and len(q["answer"]) >= 2]
        for kind, candidates in (("inside", inside), ("outside", outside)):
            if not candidates:
                continue
            edited = sentence[:at] + candidates[0] + sentence[at + len(answer):]
            pair_id = "%s-%s-%04d" % (source, kind, k)
            for label, response in (("positive", sentence), ("negative", edited)):
                rows.append({"id": pair_id + "-" + label[:3], "user_input": first["question"],
                             "response": response, "retrieved_contexts": [context],
                             "metadata": {"kind": kind, "source": source, "pair_id": pair_id,
                                          "label": label}})
    return rows


def nli_rows():
    with gzip.open(NLI_SAMPLE, "rt", encoding="utf-8") as f:
        return [{"id": "nli-" + r["sentence_pair_id"], "user_input": "",
                 "response": r["sentence2"], "retrieved_contexts": [r["sentence1"]],
                 "metadata": {"kind": "nli", "label": r["label"]}}
                for r in map(json.loads, f)]


def main(build):
    rows = []
    for source, path in (("JSQuAD (Japanese)", SAMPLE), ("CMRC 2018 (Chinese)", ZH_SAMPLE)):
        with gzip.open(path, "rt", encoding="utf-8") as f:
            rows += pairs([json.loads(line) for line in f], source)
    nli = nli_rows()
    with tempfile.TemporaryDirectory() as scratch:
        data = os.path.join(scratch, "pairs.jsonl")
        with open(data, "w", encoding="utf-8") as f:
            for r in rows + nli:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        out = os.path.join(scratch, "results.jsonl")
        subprocess.run([os.path.join(build, "tala"), "eval", data, "--judge", "offline", "-m",
                        "faithfulness", "-q", "-o", out], check=True, stdout=subprocess.DEVNULL)
        scored = {}
        with open(out, encoding="utf-8") as f:
            for line in f:
                r = json.loads(line)
                if "id" in r:
                    scored[r["id"]] = (r["scores"].get("faithfulness") or 0.0,
                                       r["reasons"].get("faithfulness", ""))
    by_pair = collections.defaultdict(dict)
    for r in rows:
        m = r["metadata"]
        by_pair[(m["source"], m["kind"], m["pair_id"])][m["label"]] = scored[r["id"]]
    print("| source | edit | pairs | pairwise | edited read supported (of which say "
          "\"not checked\") | faithful read supported |")
    print("|---|---|---|---|---|---|")
    for source, kind in sorted({(s, k) for (s, k, _) in by_pair}, key=lambda x: (x[0], x[1][1])):
        ps = [p for (s, k, _), p in by_pair.items() if (s, k) == (source, kind)]
        wins = sum(1.0 if p["positive"][0] > p["negative"][0] else
                   0.5 if p["positive"][0] == p["negative"][0] else 0.0 for p in ps)
        missed = [p for p in ps if p["negative"][0] >= 0.5]
        noted = sum("not checked" in p["negative"][1] for p in missed)
        faithful = sum(p["positive"][0] >= 0.5 for p in ps)
        print("| %s | %s | %d | %.3f | %d (%d) | %d |" % (source, kind, len(ps), wins / len(ps),
                                                         len(missed), noted, faithful))
    print("\n| JNLI (Japanese captions), hypothesis | pairs | read supported (0.5 or more) |")
    print("|---|---|---|")
    for label in ("entailment", "neutral", "contradiction"):
        got = [scored[r["id"]][0] for r in nli if r["metadata"]["label"] == label]
        print("| %s | %d | %.3f |" % (label, len(got), sum(v >= 0.5 for v in got) / len(got)))


if __name__ == "__main__":
    if len(sys.argv) > 3 and sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3])
    else:
        main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build"))
