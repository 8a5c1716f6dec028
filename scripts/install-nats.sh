#!/usr/bin/env bash
# Installs nats-server (the JetStream engine cluster mode runs on, docs/scale-out.md) into the
# project-local .cache/bin/, so nothing outside the checkout changes. Cheap when already installed:
# the binary's presence is the cache key (delete .cache/bin/nats-server to reinstall).
# Only cluster mode and its tests need it; a missing `go` is reported, not fatal, so the
# single-node setup still completes (the cluster tests then skip, saying why).
set -euo pipefail
cd "$(dirname "$0")/.."

NATS_VERSION=v2.15.2
BIN_DIR="$PWD/.cache/bin"
say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

if [ -x "$BIN_DIR/nats-server" ]; then
  say "nats-server present ($BIN_DIR/nats-server)"
  exit 0
fi
GO=$(command -v go || true)
[ -z "$GO" ] && [ -x /usr/local/go/bin/go ] && GO=/usr/local/go/bin/go
if [ -z "$GO" ]; then
  echo "[setup] go is not installed: nats-server (cluster mode and test/cluster) is skipped." >&2
  echo "[setup] Install Go >= 1.24 (https://go.dev/dl/) and run: bash scripts/install-nats.sh" >&2
  exit 0
fi
mkdir -p "$BIN_DIR"
say "installing nats-server $NATS_VERSION with go install (into .cache/bin)"
GOBIN="$BIN_DIR" "$GO" install "github.com/nats-io/nats-server/v2@$NATS_VERSION"
"$BIN_DIR/nats-server" --version
