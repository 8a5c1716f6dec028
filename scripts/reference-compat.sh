#!/usr/bin/env bash
# Runs the reference product's HTTP API test suite (tests/api_test of volcengine/OpenViking) against
# ctx, to measure drop-in compatibility (docs/compatibility.md). Not part of `npm test` or CI: it
# needs a checkout of the reference, which is never committed here (it is AGPL; we run it, we do not
# copy it). Bring one with the search tool's `fetch github:volcengine/OpenViking`.
#
#   scripts/reference-compat.sh <reference repo: bare git dir or checkout> [group ...]
#
# A group is a path under tests/api_test (a directory or one file). Default: the model-free groups
# listed in DEFAULT_GROUPS. Each group runs against its own ctx (fresh data dir, free port, random
# root key) so no group sees another's leftovers. Prints "N passed, M failed" per group, and a total.
#
# Environment:
#   COMPAT_VENV=dir       reuse (or create) the Python venv there instead of a fresh one
#   COMPAT_KEEP=1         keep the work dir (extracted suite, junit XML, server logs)
#   COMPAT_TIMEOUT=secs   per-group time limit (default 900)
#   COMPAT_PYTEST_ARGS    extra pytest arguments (e.g. "-k admin -x")
#   COMPAT_SERVER=dist    run `node dist/runtime/main.js` (after `npm run build`) instead of tsx
set -euo pipefail

DEFAULT_GROUPS=(filesystem common health_check sessions admin system skills
  scenarios/test_permission_security.py scenarios/sessions)

here=$(cd "$(dirname "$0")/.." && pwd)
ref=${1:-}
if [ -z "$ref" ] || [ ! -d "$ref" ]; then
  echo "usage: $0 <path to an OpenViking checkout or bare git dir> [group ...]" >&2
  exit 2
fi
shift
groups=("$@")
[ ${#groups[@]} -eq 0 ] && groups=("${DEFAULT_GROUPS[@]}")

work=$(mktemp -d "${TMPDIR:-/tmp}/ctx-compat.XXXXXX")
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
  if [ "${COMPAT_KEEP:-}" = 1 ]; then echo "work dir kept: $work" >&2; else rm -rf "$work"; fi
}
trap cleanup EXIT

# --- 1. the suite, extracted from the reference (a bare repository has no work tree to copy) ---
suite="$work/api_test"
if git -C "$ref" rev-parse --git-dir >/dev/null 2>&1 && git -C "$ref" cat-file -e HEAD:tests/api_test 2>/dev/null; then
  # Archive the subtree itself: a fetched snapshot may lack large blobs elsewhere in the tree.
  git -C "$ref" archive --format=tar --prefix=api_test/ HEAD:tests/api_test | tar -x -C "$work"
  echo "reference: $(git -C "$ref" log -1 --format='%h %cs' HEAD)" >&2
elif [ -d "$ref/tests/api_test" ]; then
  cp -r "$ref/tests/api_test" "$suite"
  echo "reference: $ref (not a git repository)" >&2
else
  echo "no tests/api_test in $ref" >&2
  exit 2
fi

# --- 2. the renames: the spec is the reference's API under ctx's names ---
# URI scheme, identity headers, the vector database observer, and the suite's own environment
# variables (OPENVIKING_API_KEY etc. become CTX_API_KEY etc.; SERVER_HOST/SERVER_PORT stay).
find "$suite" -type f \( -name '*.py' -o -name '*.ini' -o -name '*.cfg' -o -name '*.toml' -o -name '*.json' \) -print0 |
  xargs -0 sed -i -E \
    -e 's#viking://#ctx://#g' \
    -e 's#X-OpenViking-#X-Ctx-#g' \
    -e 's#x-openviking-#x-ctx-#g' \
    -e 's#observer/vikingdb#observer/vectordb#g' \
    -e 's#\bOPENVIKING_([A-Z0-9_]+)#CTX_\1#g'

# --- 3. Python environment ---
venv=${COMPAT_VENV:-$work/venv}
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import pytest, pytest_asyncio, requests, psutil, aiohttp' 2>/dev/null; then
  "$venv/bin/pip" install --quiet --disable-pip-version-check pytest pytest-asyncio requests psutil aiohttp >&2
fi

# --- 4. ctx: one server per group ---
cd "$here"
if [ "${COMPAT_SERVER:-}" = dist ]; then
  [ -f dist/runtime/main.js ] || npm run build >&2
  server_cmd=(node dist/runtime/main.js)
else
  server_cmd=(node --import tsx runtime/main.ts)
fi

free_port() { "$venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

start_server() { # $1: label; sets server_pid, port, root_key
  local label=$1 data="$work/data-$1" tries=0
  port=$(free_port)
  root_key="compat-root-$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')"
  mkdir -p "$data"
  echo '{}' >"$work/ctx.config.json"
  CTX_CONFIG="$work/ctx.config.json" CTX_HOST=127.0.0.1 CTX_PORT="$port" CTX_GRPC_PORT="$(free_port)" \
    CTX_DATA_DIR="$data" CTX_ROOT_API_KEY="$root_key" CTX_AUTH_MODE=api_key \
    CTX_LOG_LEVEL="${COMPAT_LOG_LEVEL:-warn}" CTX_ACCESS_LOG=false \
    "${server_cmd[@]}" >"$work/server-$label.log" 2>&1 &
  server_pid=$!
  until curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      echo "ctx did not start (log follows)" >&2; cat "$work/server-$label.log" >&2; server_pid=""; return 1
    fi
    tries=$((tries + 1))
    [ $tries -gt 300 ] && { echo "ctx did not answer /health within 60 s" >&2; return 1; }
    sleep 0.2
  done
}

stop_server() {
  [ -n "$server_pid" ] || return 0
  kill "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=""
}

# "passed failed skipped" from a junit XML file (errors count as failures).
count() {
  "$venv/bin/python" - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
try:
    root = ET.parse(sys.argv[1]).getroot()
except Exception:
    print("0 0 0"); sys.exit()
suites = [root] if root.tag == "testsuite" else root.findall("testsuite")
t = f = e = s = 0
for x in suites:
    t += int(x.get("tests", 0)); f += int(x.get("failures", 0)); e += int(x.get("errors", 0)); s += int(x.get("skipped", 0))
print(t - f - e - s, f + e, s)
PY
}

declare -a rows=()
total_p=0 total_f=0
for g in "${groups[@]}"; do
  if [ ! -e "$suite/$g" ]; then echo "no such group: $g" >&2; rows+=("$g|missing"); continue; fi
  label=$(echo "$g" | tr '/.' '__')
  start_server "$label" || { rows+=("$g|server failed"); continue; }
  xml="$work/junit-$label.xml"
  # The suite reads its target from SERVER_HOST/SERVER_PORT and keys from CTX_* (renamed above);
  # its conftest bootstraps a test user in account "default" with the ROOT key.
  # shellcheck disable=SC2086
  (cd "$suite" && SERVER_HOST=127.0.0.1 SERVER_PORT="$port" CTX_API_KEY="$root_key" CTX_ROOT_API_KEY="$root_key" \
    timeout "${COMPAT_TIMEOUT:-900}" "$venv/bin/python" -m pytest "$g" --junitxml="$xml" \
      -o log_cli=false ${COMPAT_PYTEST_ARGS:-} >"$work/pytest-$label.log" 2>&1) || true
  stop_server
  read -r p f s < <(count "$xml")
  total_p=$((total_p + p)); total_f=$((total_f + f))
  line="$p passed, $f failed"; [ "$s" != 0 ] && line="$line, $s skipped"
  rows+=("$g|$line")
  printf '%-40s %s\n' "$g" "$line"
  if [ "${COMPAT_VERBOSE:-}" = 1 ]; then grep -E '^(FAILED|ERROR) ' "$work/pytest-$label.log" >&2 || true; fi
done

echo
echo "| group | result |"
echo "|---|---|"
for r in "${rows[@]}"; do echo "| ${r%%|*} | ${r#*|} |"; done
echo "| **total** | **$total_p passed, $total_f failed** |"
