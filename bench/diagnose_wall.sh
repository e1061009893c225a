#!/bin/bash
# Wall time of `tala diagnose` against one `tala run` and one `tala ci` of the same 60 golden rows
# (examples/data/golden_faults.jsonl), the example app answering over HTTP after 50 ms with
# its seeded faults (issue 57: diagnose within 1.3x of one run). Ratios measured in one run.
# Usage: bench/diagnose_wall.sh [BUILD=build] [IN_FLIGHT=8]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
inflight=${2:-8}
tala=$build/tala
golden=$root/examples/data/golden_faults.jsonl
work=$(mktemp -d)
trap 'kill $app 2>/dev/null; rm -rf "$work"' EXIT
/usr/bin/python3 "$root/examples/rag_app/rag_app.py" serve --port 0 --delay-ms 50 \
  --faults "$golden" > "$work/app.log" &
app=$!
for _ in $(seq 50); do grep -q listening "$work/app.log" 2>/dev/null && break; sleep 0.1; done
url=$(sed -n 's/.*listening on \(http[^ ]*\).*/\1/p' "$work/app.log")
seconds() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }
run=$(seconds "$tala" run "$golden" --target "$url" --max-in-flight "$inflight" -o "$work/a.jsonl")
ci=$(seconds "$tala" ci "$golden" --target "$url" --max-in-flight "$inflight" --out-dir "$work/ci")
diag=$(seconds "$tala" diagnose "$golden" --target "$url" --max-in-flight "$inflight" \
  --docs "$root/examples/data/knowledge_base.jsonl" --out-dir "$work/d")
calls=$("$tala" diagnose "$golden" --target "$url" --max-in-flight "$inflight" --json -q \
  --docs "$root/examples/data/knowledge_base.jsonl" --out-dir "$work/e" |
  /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["calls"]["target_experiments"], d["experimented"])')
echo "60 rows, app 50 ms, --max-in-flight $inflight"
printf 'tala run      %.2f s\ntala ci       %.2f s\ntala diagnose %.2f s  (%s extra calls for %s rows)\n' \
  "$run" "$ci" "$diag" $calls
printf 'diagnose / run %.2fx, diagnose / ci %.2fx\n' "$(echo "$diag / $run" | bc -l)" \
  "$(echo "$diag / $ci" | bc -l)"
