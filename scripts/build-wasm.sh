#!/usr/bin/env bash
# Builds the WebAssembly core: the same core-native crates for wasm32-wasip1-threads with
# @napi-rs/cli, loaded through @napi-rs/wasm-runtime where the native addon is missing or does not
# load (another OS or CPU, no C++ toolchain) or when CTX_CORE=wasm (runtime/native.ts).
# Differences from the native build: no FAISS (the `faiss` feature is off: the HNSW graph is the
# pure-Rust one), SIMD128 kernels, and the tree-sitter grammars' C compiled by Debian's clang-14
# against Debian's wasi-libc headers (setup installs clang-14, lld-14, wasi-libc and
# libclang-rt-14-dev-wasm32, and the Rust target).
#
# Produces core-native/ctx-native.wasm32-wasi.wasm, ctx-native.wasi.cjs and wasi-worker.mjs (the
# generated index.cjs already falls back to them). Skipped when the sources, the lock file, this
# script and the toolchain are those of the last build (a stamp beside the artifact).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"
napi=node_modules/.bin/napi
[ -x "$napi" ] || { echo "@napi-rs/cli is missing: run \`npm ci\` (or \`npm run setup\`) first" >&2; exit 1; }
target=wasm32-wasip1-threads
out=(ctx-native.wasm32-wasi.wasm ctx-native.wasi.cjs wasi-worker.mjs)

stamp_file=core-native/.wasm-build-stamp
stamp=$( {
  find core-native/crates core-native/napi -type f \( -name '*.rs' -o -name '*.toml' -o -name '*.c' -o -name '*.h' \) \
    -not -path '*/target/*' -print0 | sort -z | xargs -0 sha256sum
  sha256sum core-native/Cargo.lock core-native/Cargo.toml scripts/build-wasm.sh
  rustc --version; clang-14 --version | head -1
  node -p 'require("@napi-rs/cli/package.json").version + " " + require("emnapi/package.json").version'
} | sha256sum | cut -d' ' -f1 )
up_to_date=1
for f in "${out[@]}"; do [ -f "core-native/$f" ] || up_to_date=0; done
if [ "$up_to_date" = 1 ] && [ -f "$stamp_file" ] && [ "$(cat "$stamp_file")" = "$stamp" ]; then
  echo "core-native (wasm): up to date"
  exit 0
fi

command -v clang-14 >/dev/null || { echo "clang-14 is missing (apt: clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32)" >&2; exit 1; }
[ -d /usr/include/wasm32-wasi ] || { echo "wasi-libc headers are missing (apt: wasi-libc)" >&2; exit 1; }
rustup target list --installed 2>/dev/null | grep -qx "$target" || rustup target add "$target"

# The C of the grammars: clang-14 predates the wasip1-threads triple cc-rs passes, so a later
# --target names the one it knows (its include path is then Debian's /usr/include/wasm32-wasi);
# -pthread -matomics -mbulk-memory make the objects linkable into the shared-memory module.
export CC_wasm32_wasip1_threads=clang-14 AR_wasm32_wasip1_threads=llvm-ar-14
export CFLAGS_wasm32_wasip1_threads="--target=wasm32-wasi --sysroot=/usr -pthread -matomics -mbulk-memory"
# SIMD128 (every current engine has it) for the vector kernels and candle; 4 GiB of addressable
# memory, the most wasm32 has (the loader's default maximum).
export CARGO_TARGET_WASM32_WASIP1_THREADS_RUSTFLAGS="-C target-feature=+simd128 -C link-arg=--max-memory=4294967296"

stage=core-native/target/napi-wasm-out
rm -rf "$stage" && mkdir -p "$stage"
log=$(mktemp)
started=$(date +%s)
if ! "$napi" build --platform --release --target "$target" --no-default-features \
  --manifest-path core-native/napi/Cargo.toml --package-json-path package.json --output-dir "$stage" \
  --js index.cjs --dts index.d.cts -- --locked >"$log" 2>&1; then
  cat "$log" >&2; rm -f "$log"; echo "core-native wasm build failed" >&2; exit 1
fi
grep -v -E '^\s*(Compiling|Downloaded|Downloading)' "$log" || true
rm -f "$log"
# The loader and typings are the native build's (index.cjs already knows the wasi fallback; the
# typings come from the same #[napi] declarations), so only the wasm artifacts are taken.
for f in "${out[@]}"; do
  [ -f "$stage/$f" ] || { echo "core-native wasm build did not produce $f" >&2; exit 1; }
  if ! cmp -s "$stage/$f" "core-native/$f" 2>/dev/null; then
    cp "$stage/$f" "core-native/$f.tmp" && mv -f "core-native/$f.tmp" "core-native/$f"
  fi
done
echo "$stamp" > "$stamp_file"
echo "core-native (wasm): $(pwd)/core-native/${out[0]} ($(du -h "core-native/${out[0]}" | cut -f1), built in $(( $(date +%s) - started )) s)"
