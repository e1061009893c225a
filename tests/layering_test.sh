#!/usr/bin/env bash
# The dependency rule of docs/architecture.md: core, metrics and analysis never include from
# the outer layers, nor a network, database or JSON header.
set -u
root=${1:-.}
bad=$(grep -rnE '#include *[<"](io/|runtime/|server/|cli/|judges/|curl/|sqlite3|httplib|simdjson|nlohmann|CLI/)' \
  "$root/src/core" "$root/src/metrics" "$root/src/analysis" 2>/dev/null)
if [ -n "$bad" ]; then
  echo "layering violation:"; echo "$bad"; exit 1
fi
bad=$(grep -rnE '#include *[<"](cli/|server/)' "$root/src/io" "$root/src/judges" 2>/dev/null)
if [ -n "$bad" ]; then
  echo "layering violation:"; echo "$bad"; exit 1
fi
echo "layering ok"
