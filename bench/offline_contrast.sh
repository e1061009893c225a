#!/usr/bin/env bash
# The offline judge on its development sets (issue 17), as a Markdown table:
# - bench/data/contrast-dev.jsonl: minimal-edit pairs (a faithful answer and the same answer
#   with one fact flipped), pairwise accuracy of faithfulness overall and per category;
# - bench/data/relevancy-dev.jsonl: on-topic and off-topic answers, pairwise accuracy and the
#   mean response_relevancy of each.
# Usage: bench/offline_contrast.sh [BUILD_DIR] [CONTRAST_FILE] [RELEVANCY_FILE]
set -euo pipefail
build=${1:-build}
contrast=${2:-bench/data/contrast-dev.jsonl}
relevancy=${3:-bench/data/relevancy-dev.jsonl}
tala="$build/tala"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

field() {  # field NAME JSON: a number from `tala calibrate --json`
  sed -n "s/.*\"$1\":\([0-9.]*\).*/\1/p" <<<"$2"
}
pairwise() {  # pairwise FILE POSITIVE METRIC
  local json
  json=$("$tala" calibrate "$1" --human metadata.label --positive "$2" \
    --judge "scores.$3" --pair-by metadata.pair_id --json)
  echo "$(field pairwise_accuracy "$json") | $(field pairs "$json")"
}

"$tala" eval "$contrast" --judge offline --metrics faithfulness -o "$work/contrast.jsonl" -q \
  >/dev/null
echo "| category | pairwise accuracy | pairs |"
echo "| --- | --- | --- |"
for category in $(grep -o '"category": *"[a-z_]*"' "$contrast" | sed 's/.*"\([a-z_]*\)"$/\1/' |
  sort -u); do
  grep "\"category\": *\"$category\"" "$work/contrast.jsonl" >"$work/$category.jsonl" || true
  echo "| $category | $(pairwise "$work/$category.jsonl" faithful faithfulness) |"
done
echo "| **all** | $(pairwise "$work/contrast.jsonl" faithful faithfulness) |"
echo

"$tala" eval "$relevancy" --judge offline --metrics response_relevancy \
  -o "$work/relevancy.jsonl" -q >/dev/null
mean() {  # mean LABEL: mean response_relevancy of the rows with that label
  grep "\"label\": *\"$1\"" "$work/relevancy.jsonl" |
    sed -n 's/.*"scores":{"response_relevancy":\([0-9.e-]*\).*/\1/p' |
    awk '{ s += $1; n += 1 } END { if (n) printf "%.3f", s / n; else print "-" }'
}
echo "| relevancy set | pairwise accuracy | pairs | mean on-topic | mean off-topic |"
echo "| --- | --- | --- | --- | --- |"
echo "| $(basename "$relevancy") | $(pairwise "$work/relevancy.jsonl" on_topic response_relevancy) |" \
  "$(mean on_topic) | $(mean off_topic) |"
