#!/usr/bin/env bash
# Generates the protobuf-es code of proto/*.proto into plugins/compile/gen/ (not committed) with the
# buf binary and protoc-gen-es from node_modules: nothing is downloaded. Skipped when the output is
# newer than every input. Run by `npm run setup`; on its own it needs `npm ci` first.
set -euo pipefail
cd "$(dirname "$0")/.."
buf=node_modules/.bin/buf
[ -x "$buf" ] && [ -x node_modules/.bin/protoc-gen-es ] || { echo "buf or protoc-gen-es is missing: run \`npm ci\` (or \`npm run setup\`) first" >&2; exit 1; }
out=plugins/compile/gen/runtime_pb.ts
if [ -f "$out" ] && [ -z "$(find proto scripts/gen-proto.sh package-lock.json -newer "$out" -type f 2>/dev/null | head -1)" ]; then
  echo "protobuf code up to date"
  exit 0
fi
rm -rf plugins/compile/gen
(cd proto && "../$buf" generate)
[ -f "$out" ] || { echo "buf generate did not produce $out" >&2; exit 1; }
echo "generated $out"
