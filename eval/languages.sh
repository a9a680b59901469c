#!/usr/bin/env bash
# Scores both presets on one corpus per language, built from the translations of
# one book (issue 10: `best` must not do worse than `pan09` in any language).
#
#   eval/languages.sh [LANG...]
#
# 1. Makes the documents of each language (default: ar-MA fa-IR ru-RU zh-CN
#    ja-JP de-DE, the handbook's directory names; el-GR has one document's worth
#    of translated text) from Debian's debian-handbook package, as
#    eval/handbook-texts.sh says: the translated paragraph text cut into
#    documents of about 12,000 characters, in texts/LANG/ of the cache. The
#    package (35 MB) is downloaded on the first run.
# 2. Builds a PAN-PC-10-style corpus per language with `pan-detect corpus` (seed
#    SEED, document sizes DOC_CHARS; 0.6 to 1.1 MB each: all the translated
#    text), cases within one language.
# 3. Prints `eval/run.sh CORPUS --preset best` and `--preset pan09` per language
#    (plagdet per obfuscation class), then one summary line per language.
#
# Texts translated from one book share their structure; cases are only built
# within one language, never across translations. About 10 s in all on 2 cores
# (plus the release build), and the download (35 MB) on the first run.
#
# Environment:
#   LANGUAGES_DIR  cache directory (default /tmp/pan-detect-languages): debs/,
#                  texts/LANG/ and corpus-LANG-seedSEED/
#   SEED           seed of the corpus builder (default 2026)
#   DOC_CHARS      --doc-chars of the corpus builder (default 3k..60k)
#   REFETCH=1      download the package and make the documents again
# Needs apt-get and dpkg-deb (Debian), python3, and network access to Debian's
# archive on the first run.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
    exit 0
fi
LANGUAGES_DIR=${LANGUAGES_DIR:-/tmp/pan-detect-languages}
SEED=${SEED:-2026}
DOC_CHARS=${DOC_CHARS:-3k..60k}
languages=("$@")
if [[ ${#languages[@]} == 0 ]]; then
    languages=(ar-MA fa-IR ru-RU zh-CN ja-JP de-DE)
fi

source "$root/eval/common.sh"
require_tools apt-get dpkg-deb python3
build_release

source "$root/eval/handbook-texts.sh"
handbook_texts "$LANGUAGES_DIR" "${languages[@]}"

# --- 2. and 3. a corpus per language, both presets --------------------------------------
summary=()
for language in "${languages[@]}"; do
    corpus=$LANGUAGES_DIR/corpus-$language-seed$SEED
    rm -rf -- "$corpus"
    "$binary" corpus --texts "$texts/$language" --out "$corpus" --seed "$SEED" --doc-chars "$DOC_CHARS" --quiet
    echo
    echo "== $language: corpus $corpus"
    sed -n '/^documents:/,/^case length histogram/p' "$corpus/README.txt" | sed '$d' | sed 's/^./   &/'
    line="$language"
    for preset in best pan09; do
        table=$LANGUAGES_DIR/table-$language-$preset.txt
        preset_table "$language" "$corpus" "$preset" "$table"
        line="$line  $preset $(table_field "$table" all 4)"
    done
    summary+=("$line")
done
echo
echo "== overall plagdet per language"
printf '   %s\n' "${summary[@]}"
