#!/usr/bin/env bash
# Builds core-native (the Rust workspace) with @napi-rs/cli, which also generates the typings
# (`core-native/index.d.cts`) and the loader (`core-native/index.cjs`) from the #[napi]
# declarations; runtime/native.ts loads the addon through that loader (package.json `imports`:
# `#core-native`) and takes its types from those typings. Run by `npm run setup`; on its own it
# needs `node_modules` (`npm ci`).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
# Native npm builds must never download Node headers: use the system's.
export npm_config_nodedir=/usr
napi=node_modules/.bin/napi
[ -x "$napi" ] || { echo "@napi-rs/cli is missing: run \`npm ci\` (or \`npm run setup\`) first" >&2; exit 1; }

# Built into a staging directory, then moved in place: writing over the .node a running server has
# mapped would crash it, while a rename leaves its copy intact.
stage=core-native/target/napi-out
rm -rf "$stage" && mkdir -p "$stage"
log=$(mktemp)
if ! "$napi" build --platform --release --manifest-path core-native/napi/Cargo.toml \
  --package-json-path package.json --output-dir "$stage" --js index.cjs --dts index.d.cts \
  -- --locked >"$log" 2>&1; then
  cat "$log" >&2; rm -f "$log"; echo "core-native build failed" >&2; exit 1
fi
grep -v -E '^\s*(Compiling|Downloaded|Downloading)' "$log" || true
rm -f "$log"
for f in ctx-native.linux-x64-gnu.node index.cjs index.d.cts; do
  [ -f "$stage/$f" ] || { echo "core-native build did not produce $f" >&2; exit 1; }
  if ! cmp -s "$stage/$f" "core-native/$f" 2>/dev/null; then
    cp "$stage/$f" "core-native/$f.tmp" && mv -f "core-native/$f.tmp" "core-native/$f"
  fi
done
echo "core-native: $(pwd)/core-native/ctx-native.linux-x64-gnu.node (typings: core-native/index.d.cts)"
