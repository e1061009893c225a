#!/usr/bin/env bash
# How far to trust each offline metric (issue 34): relevance pairs made mechanically from HaluEval,
# per half (fit: what bench/fit_relevance.py fitted the blends on; held: reported), and HaluEval
# faithfulness, as one Markdown table. Needs /usr/bin/python3 and the shared HaluEval
# file; the sentence encoder from `make deps` for the encoder's figures.
# Usage: bench/offline_trust.sh [BUILD_DIR] [HALUEVAL_JSONL]
set -euo pipefail
build=${1:-build}
data=${2:-../shared/data/halueval-qa-dev.jsonl}
exec /usr/bin/python3 "$(dirname "$0")/offline_trust.py" "$build/tala" "$data"
