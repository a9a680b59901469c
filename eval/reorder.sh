#!/usr/bin/env bash
# Measures how many copies whose word order was destroyed (issue 62) each preset
# finds, on one corpus per language built from one book.
#
#   eval/reorder.sh [LANG...]
#
# 1. Makes the documents of each language (default: en-US, the handbook's
#    original English, and ar-MA) from Debian's debian-handbook package, as
#    eval/handbook-texts.sh says (in the cache eval/languages.sh uses too):
#    paragraph text cut into documents of about 12,000 characters. The package
#    (35 MB) is downloaded on the first run.
# 2. Builds a corpus per language with `pan-detect corpus --obfuscation reorder`
#    (none 20 %, phrase-shuffle 30 %, word-shuffle 50 %; seed SEED, document
#    sizes DOC_CHARS, a share PLAGIARISED_FRACTION of the suspicious documents
#    plagiarised), cases within one language, and stops (status 1) when a corpus
#    has fewer than MIN_WORD_SHUFFLE_CASES word-shuffle cases.
# 3. Prints `eval/run.sh CORPUS --preset best` and `--preset pan09` per language
#    (plagdet, recall, precision, granularity per obfuscation class), then one
#    summary line per language and preset: recall and precision on the
#    word-shuffle cases, precision and plagdet over all cases.
#
# Environment:
#   LANGUAGES_DIR            cache directory (default /tmp/pan-detect-languages):
#                            debs/, texts/LANG/, corpus-reorder-LANG-seedSEED/
#                            and the tables, table-reorder-LANG-PRESET.txt
#   SEED                     seed of the corpus builder (default 2026)
#   DOC_CHARS                --doc-chars of the corpus builder (default 3k..12k:
#                            small documents, so that the Arabic text, 0.4 million
#                            characters, holds 100 word-shuffle cases)
#   PLAGIARISED_FRACTION     --plagiarised-fraction (default 1, for the same reason)
#   MIN_WORD_SHUFFLE_CASES   fewest word-shuffle cases a corpus must have (default 100)
#   MIN_WORD_SHUFFLE_RECALL  exit with status 1 when best's recall on the
#                            word-shuffle cases is below this in a language
#                            (default: no check)
#   MIN_PRECISION            exit with status 1 when best's precision over all
#                            cases is below this in a language (default: no check)
#   REFETCH=1                download the package and make the documents again
# Needs apt-get and dpkg-deb (Debian), python3, and network access to Debian's
# archive on the first run. About 20 s (plus the release build) on 2 cores.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$root/eval/common.sh"
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi
LANGUAGES_DIR=${LANGUAGES_DIR:-/tmp/pan-detect-languages}
SEED=${SEED:-2026}
DOC_CHARS=${DOC_CHARS:-3k..12k}
PLAGIARISED_FRACTION=${PLAGIARISED_FRACTION:-1}
MIN_WORD_SHUFFLE_CASES=${MIN_WORD_SHUFFLE_CASES:-100}
languages=("$@")
if [[ ${#languages[@]} == 0 ]]; then
    languages=(en-US ar-MA)
fi

require_tools apt-get dpkg-deb python3
build_release
source "$root/eval/handbook-texts.sh"
handbook_texts "$LANGUAGES_DIR" "${languages[@]}"

# below VALUE MINIMUM: true when a minimum is set and VALUE (a number, or `?`
# when the table had none) is below it.
below() {
    [[ -n $2 ]] && awk -v value="$1" -v minimum="$2" 'BEGIN { exit !(value == "?" || value + 0 < minimum + 0) }'
}

summary=()
failures=()
for language in "${languages[@]}"; do
    corpus=$LANGUAGES_DIR/corpus-reorder-$language-seed$SEED
    rm -rf -- "$corpus"
    "$binary" corpus --texts "$texts/$language" --out "$corpus" --seed "$SEED" --doc-chars "$DOC_CHARS" \
        --plagiarised-fraction "$PLAGIARISED_FRACTION" --obfuscation reorder --quiet
    echo
    echo "== $language: corpus $corpus"
    sed -n '/^documents:/,/^case length histogram/p' "$corpus/README.txt" | sed '$d' | sed 's/^./   &/'
    shuffled=$(awk -F'\t' 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "obfuscation") column = i; next }
        $column == "word-shuffle" { n++ } END { print n + 0 }' "$corpus/cases.tsv")
    if ((shuffled < MIN_WORD_SHUFFLE_CASES)); then
        echo "eval/$(basename "$0"): $language: $shuffled word-shuffle cases, fewer than $MIN_WORD_SHUFFLE_CASES" \
            "(smaller documents, DOC_CHARS, give more)" >&2
        exit 1
    fi
    for preset in best pan09; do
        table=$LANGUAGES_DIR/table-reorder-$language-$preset.txt
        preset_table "$language" "$corpus" "$preset" "$table"
        recall=$(table_field "$table" word-shuffle 5)
        precision=$(table_field "$table" all 6)
        summary+=("$(printf '%-6s %-5s word-shuffle (%d cases): recall %s precision %s   all: precision %s plagdet %s' \
            "$language" "$preset" "$shuffled" "$recall" "$(table_field "$table" word-shuffle 6)" "$precision" \
            "$(table_field "$table" all 4)")")
        if [[ $preset == best ]]; then
            if below "$recall" "${MIN_WORD_SHUFFLE_RECALL:-}"; then
                failures+=("$language: best's recall on word-shuffle cases $recall < MIN_WORD_SHUFFLE_RECALL $MIN_WORD_SHUFFLE_RECALL")
            fi
            if below "$precision" "${MIN_PRECISION:-}"; then
                failures+=("$language: best's precision $precision < MIN_PRECISION $MIN_PRECISION")
            fi
        fi
    done
done
echo
echo "== word-shuffle cases found per language and preset"
printf '   %s\n' "${summary[@]}"
if [[ ${#failures[@]} -gt 0 ]]; then
    for failure in "${failures[@]}"; do
        echo "eval/$(basename "$0"): $failure" >&2
    done
    exit 1
fi
