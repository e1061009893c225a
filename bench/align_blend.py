"""tala align's refit of the offline judge's relevance blends (issue 55 item 1), on the pair
kinds of every development source (bench/dev_sources.py, bench/relevance_sets.py): each source
is one "project", its rows labelled right (the positive side of a pair) or wrong (the negative).

For each source and blend (response_relevancy on the response kinds, context_relevance on the
context kinds), N labelled rows are drawn at random (seeded) and `tala align` fits the profile;
the table gives what align reports on its held-out folds (balanced accuracy with the built-in
weights at 0.7, with the fitted threshold alone, with the refitted blend; AUROC before and after;
whether the profile keeps the weights; whether align wrote a profile at all, which it does only
when some gain's interval lies above 0), and then what a project gets on the source's rows that
were not labelled (the ones it scores next): the built-in weights at 0.7, and the profile where
one was written (else the same). The profile's figure when forced is given too.
Last, each profile that kept refitted weights is scored on the other sources' rows (its reach
beyond the project it was fitted on). Every figure is on rows the fit did not see.

    /usr/bin/python3 bench/align_blend.py [BUILD_DIR] [--labels=100,300]   (default: build)
"""
import json
import os
import random
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import dev_sources  # noqa: E402
import offline_trust  # noqa: E402
import relevance_sets  # noqa: E402

METRIC = {"response": "response_relevancy", "context": "context_relevance"}
LINE = re.compile(r"held-out balanced accuracy ([\d.]+) -> ([\d.]+).*AUROC ([\d.]+|n/a)")
BLEND = re.compile(r"blend refitted on (\d+) labelled rows read again: held-out balanced accuracy "
                   r"([\d.]+) \(the fitted threshold alone: ([\d.]+)\), over it ([-+][\d.]+), "
                   r"95% \[([-+][\d.]+), ([-+][\d.]+)\]; AUROC ([\d.]+|n/a) -> ([\d.]+|n/a)")


def rows_of(source, kind):
    rows = relevance_sets.build_items(dev_sources.items(source), lambda i, s=source: s)
    return [r for r in rows if ("response" in r) == (kind == "response")]


def write(path, rows):
    with open(path, "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)


def scores(path, metric):
    out = {}
    with open(path) as f:
        for line in f:
            r = json.loads(line)
            if "scores" in r:
                out[r["id"]] = r["scores"].get(metric)
    return out


def evaluate(tala, data, metric, out, profile=None):
    cmd = [tala, "eval", data, "-m", metric, "-q", "--no-progress", "-o", out, "--overwrite"]
    if profile:
        cmd += ["--judge-profile", profile]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return scores(out, metric)


def balanced(ids, truth, score, t):
    pos = [i for i in ids if truth[i]]
    neg = [i for i in ids if not truth[i]]
    return 0.5 * (sum((score[i] or 0) >= t for i in pos) / len(pos) +
                  sum((score[i] or 0) < t for i in neg) / len(neg))


def auroc(ids, truth, score):
    return offline_trust.auroc([score[i] or 0 for i in ids if truth[i]],
                               [score[i] or 0 for i in ids if not truth[i]])


def main(build, counts):
    tala = os.path.join(build, "tala")
    scratch = tempfile.mkdtemp(prefix="align-blend-")
    kept = []  # (kind, source, n, profile)
    truth, data, base = {}, {}, {}
    for kind in METRIC:
        for s in dev_sources.SOURCES:
            rows = rows_of(s, kind)
            data[kind, s] = os.path.join(scratch, "%s-%s.jsonl" % (s, kind))
            write(data[kind, s], rows)
            truth[kind, s] = {r["id"]: r["metadata"]["label"] == "positive" for r in rows}
            base[kind, s] = evaluate(tala, data[kind, s], METRIC[kind],
                                     os.path.join(scratch, "%s-%s-base.jsonl" % (s, kind)))
    for n in counts:
        print("\n## %d labels a source\n" % n)
        print("| blend | source | folds: at 0.7 | threshold alone | refitted | AUROC | kept | "
              "written | unlabelled rows: built-in at 0.7 | what the project gets | the profile "
              "forced | AUROC |")
        print("|---" * 12 + "|")
        for kind, metric in METRIC.items():
            for s in dev_sources.SOURCES:
                ids = sorted(truth[kind, s])
                labelled = set(random.Random(n).sample(ids, n))
                labels = os.path.join(scratch, "%s-%s-%d-labels.jsonl" % (s, kind, n))
                write(labels, [{"tala_labels": {"pick": "random", "seed": n}}] +
                      [{"id": i, metric: int(truth[kind, s][i])} for i in ids if i in labelled])
                profile = os.path.join(scratch, "%s-%s-%d.json" % (s, kind, n))
                results = os.path.join(scratch, "%s-%s-base.jsonl" % (s, kind))
                written = subprocess.run([tala, "align", results, "--labels", labels, "-o",
                                          profile + ".unforced"],
                                         capture_output=True).returncode == 0
                text = subprocess.run([tala, "align", results, "--labels", labels, "--force",
                                       "-o", profile], capture_output=True, text=True).stdout
                m, b = LINE.search(text), BLEND.search(text)
                if not m or not b:
                    print("| %s | %s | align said: %s |" % (metric, s, text.strip()[:200]))
                    continue
                with open(profile) as f:
                    p = json.load(f)["metrics"][metric]
                has_blend = "blend" in p
                rest = [i for i in ids if i not in labelled and base[kind, s][i] is not None]
                after = base[kind, s]
                if has_blend:
                    after = evaluate(tala, data[kind, s], metric,
                                     os.path.join(scratch, "%s-%s-%d.jsonl" % (s, kind, n)),
                                     profile)
                    kept.append((kind, s, n, profile))
                built_in = balanced(rest, truth[kind, s], base[kind, s], 0.7)
                forced = balanced(rest, truth[kind, s], after, p["threshold"])
                print("| %s | %s | %.3f | %s | %s | %s -> %s | %s | %s | %.3f | %.3f | %.3f | "
                      "%.3f -> %.3f |" % (
                          metric, s, float(m.group(1)), b.group(3), b.group(2), b.group(7),
                          b.group(8), "yes" if has_blend else "no", "yes" if written else "no",
                          built_in, forced if written else built_in, forced,
                          auroc(rest, truth[kind, s], base[kind, s]),
                          auroc(rest, truth[kind, s], after)))
    if kept:
        print("\n## Kept profiles on the other sources' rows (balanced accuracy at the profile's "
              "threshold vs built-in at 0.7; AUROC)\n")
        print("| profile | " + " | ".join(dev_sources.SOURCES) + " |")
        print("|---" * (len(dev_sources.SOURCES) + 1) + "|")
        for kind, s, n, profile in kept:
            metric = METRIC[kind]
            with open(profile) as f:
                t = json.load(f)["metrics"][metric]["threshold"]
            cells = []
            for o in dev_sources.SOURCES:
                if o == s:
                    cells.append("(fitted)")
                    continue
                ids = [i for i in truth[kind, o] if base[kind, o][i] is not None]
                after = evaluate(tala, data[kind, o], metric,
                                 os.path.join(scratch, "x-%s-%s.jsonl" % (o, kind)), profile)
                cells.append("%.3f vs %.3f; %.3f vs %.3f" % (
                    balanced(ids, truth[kind, o], after, t),
                    balanced(ids, truth[kind, o], base[kind, o], 0.7),
                    auroc(ids, truth[kind, o], after), auroc(ids, truth[kind, o], base[kind, o])))
            print("| %s, %s, %d labels | %s |" % (metric, s, n, " | ".join(cells)))


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    counts = [100, 300]
    for a in sys.argv[1:]:
        if a.startswith("--labels="):
            counts = [int(x) for x in a.split("=", 1)[1].split(",")]
    main(args[0] if args else "build", counts)
