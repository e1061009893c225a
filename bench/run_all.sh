#!/usr/bin/env bash
# Runs every benchmark and prints its table. Usage: bench/run_all.sh BUILD_DIR
set -euo pipefail
build=${1:-build}
echo "## reader: JSON Lines, 10 chunks a row (one process per size)"
"$build/bench/bench_reader" 100
"$build/bench/bench_reader" 1000
echo "## metrics: replay-judged scoring, every RAG metric"
"$build/bench/bench_metrics" 100000
"$build/bench/bench_metrics" 1000000
echo "## offline judge on HaluEval-sized rows (shared/data, beside the checkout)"
data=../shared/data/halueval-qa-dev.jsonl
[ -f "$data" ] || data=examples/data/interactions.jsonl
"$build/bench/bench_offline" "$data" 50000
echo "## the offline judge across sources, each figure on a source left out of the fit"
if [ -x "$build/bench/relevance_features" ]; then /usr/bin/python3 bench/judge_sources.py "$build"; fi
echo "## tala align's refit of the offline relevance blends, per source, on rows the fit never saw"
/usr/bin/python3 bench/align_blend.py "$build"
echo "## offline context precision with references spread over chunks (HaluEval halves)"
/usr/bin/python3 bench/spread_reference.py "$build/tala"
echo "## non-LLM metrics (IR rows: 10 ranked ids; string pairs: 40 words)"
"$build/bench/bench_non_llm" 1000000
echo "## the same through Python libraries, when installed (rows/s, one core)"
/usr/bin/python3 bench/compare_python.py 20000 || true
echo "## the Python package over the engine (100k rows, non-LLM metrics)"
if [ -f "$build/python/tala/__init__.py" ]; then PYTHONPATH="$build/python" /usr/bin/python3 bench/python_overhead.py "$build"; fi
echo "## LLM runtime against the mock judge (50 ms latency, 64 in flight)"
if [ -x "$build/bench/bench_runtime" ]; then "$build/bench/bench_runtime" 1000 50 64; fi
echo "## tala run: 1,000 questions against an HTTP app with 50 ms latency, 64 in flight"
if [ -x "$build/bench/bench_target" ]; then "$build/bench/bench_target" 1000 50 64; fi
echo "## tala diagnose: 60 questions, an app answering after 50 ms, against tala run and tala ci"
bench/diagnose_wall.sh "$build" 8 || true
echo "## --sequential's confidence sequence: wrong decisions and rows needed, 1,000 simulated runs"
if [ -x "$build/bench/bench_sequential" ]; then "$build/bench/bench_sequential" 1000; fi
echo "## tala review --pick active against random picks: HaluEval QA dev labels, offline faithfulness"
if [ -x "$build/bench/bench_active_labels" ] && [ -f ../shared/data/halueval-qa-dev.jsonl ]; then
  "$build/tala" eval ../shared/data/halueval-qa-dev.jsonl -m faithfulness -q --overwrite \
    -o /tmp/tala-active-labels.jsonl > /dev/null &&
    "$build/bench/bench_active_labels" /tmp/tala-active-labels.jsonl ../shared/data/halueval-qa-dev.jsonl
fi
echo "## tala serve: a million rows ingested, 1,000 a request, 1% scored in the background"
if [ -x "$build/bench/bench_serve" ]; then "$build/bench/bench_serve" 1000000 1000 0.01; fi
echo "## tala history: add of a 100,000-row run; show and report over 1,000 runs"
if [ -x "$build/bench/bench_history" ]; then "$build/bench/bench_history" 100000 1000; fi
echo "## tala testset: 100,000 logged questions and 2,000 pages, offline"
if [ -x "$build/bench/bench_testset" ]; then "$build/bench/bench_testset" 100000 2000 100; fi
echo "## faithfulness in Japanese and Chinese: one-detail edits (JSQuAD, CMRC 2018), JNLI"
/usr/bin/python3 bench/cjk_edits.py "$build"
echo "## tala testset remap: golden sets of the development sources onto half and quarter chunks"
/usr/bin/python3 bench/remap_rechunk.py "$build"
echo "## the offline sentence encoder, one core (needs the model make deps fetches)"
if [ -x "$build/bench/bench_encoder" ]; then "$build/bench/bench_encoder" 2000 || true; fi
