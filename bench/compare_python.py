#!/usr/bin/env python3
"""The same work as bench_non_llm's BLEU and Levenshtein rows, timed through Debian's
python3-nltk (sentence BLEU, method1 smoothing) and python3-levenshtein, for comparison.
Usage: compare_python.py [PAIRS]. Prints nothing but a note when the modules are missing."""
import random, sys, time

pairs = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
words = ["the", "retriever", "returned", "chunks", "about", "the", "magazine", "founded", "in",
         "1844", "Philadelphia", "literary", "periodical", "women", "published", "by", "Bauer",
         "Media", "Group", "answer"]
rng = random.Random(42)
data = [(" ".join(rng.choice(words) for _ in range(40)), " ".join(rng.choice(words) for _ in range(40)))
        for _ in range(256)]
try:
    from nltk.translate.bleu_score import sentence_bleu, SmoothingFunction
    smooth = SmoothingFunction().method1
    t = time.process_time()
    for i in range(pairs):
        a, b = data[i & 255]
        sentence_bleu([b.split()], a.split(), smoothing_function=smooth)
    print(f"| python3-nltk sentence_bleu | {pairs} | {pairs / (time.process_time() - t):.0f} |")
except ImportError:
    print("python3-nltk not installed: skipped (apt-get install python3-nltk)")
try:
    import Levenshtein
    t = time.process_time()
    n = pairs * 10
    for i in range(n):
        a, b = data[i & 255]
        Levenshtein.ratio(a, b)
    print(f"| python3-levenshtein ratio | {n} | {n / (time.process_time() - t):.0f} |")
except ImportError:
    print("python3-levenshtein not installed: skipped (apt-get install python3-levenshtein)")
