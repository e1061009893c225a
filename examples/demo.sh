#!/usr/bin/env bash
# make demo: tala's main job on the bundled example data with the embedded offline judge.
set -euo pipefail
tala=${1:-build/tala}
data=examples/data/interactions.jsonl
out=out/demo-results.jsonl
# The generator and retriever metrics a first look needs; leave --metrics out for every metric
# the data allows (string and IR metrics too).
metrics=faithfulness,response_relevancy,context_precision,context_recall,noise_sensitivity,factual_correctness,id_based_context_recall
mkdir -p out
echo "== tala validate $data"
"$tala" validate "$data"
echo
echo "== tala eval $data --judge offline --metrics $metrics --out $out"
"$tala" eval "$data" --judge offline --metrics "$metrics" --out "$out" --quiet
echo
echo "Each row's scores, with the reason for each (and for every null), are in $out."
echo "Scenarios per row are in its metadata.scenario; try:"
echo "  $tala calibrate $out --human metadata.scenario --positive 'clean success' --judge scores.faithfulness"
