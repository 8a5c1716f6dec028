#!/usr/bin/env bash
# Builds core-native (the Rust workspace) and installs the addon where runtime/native.ts loads it.
# Plain cargo instead of @napi-rs/cli: the npm registry reachable here serves only the linux-x64
# variants of the CLI's optional native packages, which makes `npm ci` reject any lock file that
# contains it (see docs/architecture.md). A napi-rs cdylib is an ordinary shared object; the CLI
# would only copy it to `*.node` and generate typings, which runtime/native.ts declares by hand.
set -euo pipefail
cd "$(dirname "$0")/../core-native"
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
log=$(mktemp)
if ! cargo build --release --locked -p ctx-native >"$log" 2>&1; then
  cat "$log" >&2; rm -f "$log"; echo "core-native build failed" >&2; exit 1
fi
grep -v -E '^\s*(Compiling|Downloaded|Downloading)' "$log" || true
rm -f "$log"
src=target/release/libctx_native.so
dst=ctx-native.linux-x64-gnu.node
# Copy through a temp name and rename: a running server keeps its mapped copy intact.
if ! cmp -s "$src" "$dst" 2>/dev/null; then
  cp "$src" "$dst.tmp" && mv -f "$dst.tmp" "$dst"
fi
echo "core-native: $(pwd)/$dst"
