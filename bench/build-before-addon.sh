#!/usr/bin/env bash
# Builds the "before" native addon of `bench/core-wasm.bench.ts --cores before,native`: the core as
# it was at a given commit (default aa28a6d, the last one before the WebAssembly build of issue 26
# put FAISS behind a cargo feature), into bench/.cache/ctx-native-before.node.
#
#   bash bench/build-before-addon.sh [commit]
#
# The commit's core-native/ is exported into a scratch directory and built with this checkout's
# @napi-rs/cli in release mode, sharing core-native/target so the dependencies (candle, the
# grammars, FAISS's shim) are not compiled twice; only the ctx crates are (a few minutes, the whole
# machine: run it before the benchmark, not during; the next `npm run build:native` then recompiles
# the ctx crates, nothing else). Skipped when the addon for that commit exists.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
export npm_config_nodedir=/usr
commit=${1:-aa28a6d}
out=bench/.cache/ctx-native-before.node
stamp=bench/.cache/ctx-native-before.commit
full=$(git rev-parse "$commit^{commit}")
if [ -f "$out" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$full" ]; then
  echo "before addon: $out (commit ${full:0:7}) is up to date"
  exit 0
fi
napi=$(pwd)/node_modules/.bin/napi
[ -x "$napi" ] || { echo "@napi-rs/cli is missing: run \`npm ci\` first" >&2; exit 1; }
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git archive "$full" core-native package.json | tar -x -C "$scratch"
started=$(date +%s)
# The napi CLI reads the binary name from package.json and writes ctx-native.linux-x64-gnu.node.
( cd "$scratch" && CARGO_TARGET_DIR="$OLDPWD/core-native/target" "$napi" build --platform --release \
    --manifest-path core-native/napi/Cargo.toml --package-json-path package.json --output-dir out -- --locked )
mkdir -p bench/.cache
cp "$scratch/out/ctx-native.linux-x64-gnu.node" "$out.tmp" && mv -f "$out.tmp" "$out"
echo "$full" > "$stamp"
echo "before addon: $out (commit ${full:0:7}, built in $(( $(date +%s) - started )) s)"
