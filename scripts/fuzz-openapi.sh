#!/usr/bin/env bash
# Schema-driven fuzzing of the HTTP API with schemathesis (PyPI, in a venv under .cache/; never in CI):
# starts a throw-away server from the sources (ROOT key, temp data dir), runs schemathesis over
# /api/v1/openapi.json (25 examples per operation by default) and prints, per check, the operations
# that fail: undocumented status codes, server errors (a 503 the route documents is not one) and
# generated valid requests the server rejects (the schema does not say what the server enforces).
#
#   bash scripts/fuzz-openapi.sh                 # all operations, 25 examples each
#   FUZZ_EXAMPLES=50 bash scripts/fuzz-openapi.sh --include-path-regex '^/api/v1/fs'
#
# Extra arguments go to `schemathesis run`. Exit 1 when an undocumented status or an undocumented
# server error was found. Reports land in .cache/fuzz/ (ndjson events and a JUnit file).
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=.cache/schemathesis-venv
OUT=.cache/fuzz
EXAMPLES=${FUZZ_EXAMPLES:-25}
mkdir -p "$OUT"

if [ ! -x "$VENV/bin/schemathesis" ]; then
  echo "[fuzz] installing schemathesis 4 into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet 'schemathesis>=4,<5'
fi

DATA=$(mktemp -d /tmp/ctx-fuzz-XXXXXX)
PORT=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
cleanup() {
  [ -n "${SERVER_PID:-}" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null || true
  rm -rf "$DATA"
}
trap cleanup EXIT

ROOT_KEY=fuzz-root-key-$(date +%s%N)
echo "[fuzz] starting a throw-away server on 127.0.0.1:$PORT (data in $DATA)"
CTX_AUTH_MODE=api_key CTX_ROOT_API_KEY=$ROOT_KEY CTX_HOST=127.0.0.1 CTX_PORT=$PORT CTX_GRPC_PORT=0 CTX_DATA_DIR=$DATA CTX_LOG_LEVEL=error CTX_ACCESS_LOG=false \
  node --import tsx runtime/main.ts > "$OUT/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 1 120); do
  curl -fs "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break
  kill -0 "$SERVER_PID" 2>/dev/null || { echo "[fuzz] the server did not start:"; cat "$OUT/server.log"; exit 1; }
  sleep 0.5
done

echo "[fuzz] schemathesis: $EXAMPLES examples per operation"
set +e
"$VENV/bin/schemathesis" --config-file scripts/fuzz-openapi.toml run "http://127.0.0.1:$PORT/api/v1/openapi.json" \
  --max-examples "$EXAMPLES" --phases examples,coverage,fuzzing --workers 1 --seed 1 --no-color \
  -H "X-API-Key: $ROOT_KEY" --generation-with-security-parameters false \
  --checks not_a_server_error,status_code_conformance,positive_data_acceptance \
  --suppress-health-check all --continue-on-failure --exclude-deprecated --request-timeout 30 --generation-database none \
  --report ndjson,junit --report-dir "$OUT" --report-ndjson-path "$OUT/events.ndjson" --report-junit-path "$OUT/junit.xml" \
  "$@" > "$OUT/schemathesis.txt" 2>&1
ST_EXIT=$?
set -e
tail -n 40 "$OUT/schemathesis.txt"
node scripts/fuzz-openapi-summary.mjs "$OUT/events.ndjson" docs/openapi.json
