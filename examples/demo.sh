#!/usr/bin/env bash
# make demo: tala's main job on the bundled example data with the embedded offline judge.
set -euo pipefail
tala=${1:-build/tala}
data=examples/data/interactions.jsonl
out=out/demo-results.jsonl
mkdir -p out
echo "== tala validate $data"
"$tala" validate "$data"
echo
echo "== tala eval $data --judge offline --out $out"
"$tala" eval "$data" --judge offline --out "$out" --quiet
echo
echo "Each row's scores, with the reason for each (and for every null), are in $out."
echo "Scenarios per row are in its metadata.scenario; try:"
echo "  $tala calibrate $out --human metadata.scenario --positive 'clean success' --judge scores.faithfulness"
