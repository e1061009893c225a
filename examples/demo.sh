#!/usr/bin/env bash
# make demo: tala's main job on the bundled example data with the embedded offline judge.
set -euo pipefail
tala=${1:-build/tala}
data=examples/data/interactions.jsonl
out=out/demo-results.jsonl
# No --metrics: the core metrics a first look needs (Ragas' four and the retrieval pair by ids);
# `--metrics all` adds every other metric the data allows (string and IR metrics too).
mkdir -p out
echo "== tala validate $data"
"$tala" validate "$data"
echo
echo "== tala eval $data --judge offline --out $out --overwrite"
"$tala" eval "$data" --judge offline --out "$out" --overwrite --no-progress
echo
echo "Each row's scores, with the reason for each (and for every null), are in $out."
echo "Scenarios per row are in its metadata.scenario; try:"
echo "  $tala calibrate $out --human metadata.scenario --positive 'clean success' --judge scores.faithfulness"
