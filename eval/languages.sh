#!/usr/bin/env bash
# Scores both presets on one corpus per language, built from the translations of
# one book (issue 10: `best` must not do worse than `pan09` in any language).
#
#   eval/languages.sh [LANG...]
#
# 1. Fetches Debian's debian-handbook package (pinned version, `apt-get
#    download`, not installed) and unpacks it with `dpkg-deb -x`. The same
#    package file in eval/independent-corpus.sh's cache is reused when present.
# 2. Per language (default: ar-MA fa-IR ru-RU zh-CN ja-JP de-DE, the handbook's
#    directory names; el-GR has one document's worth of translated text), keeps
#    the translated paragraph text (no program listings, screens or tables;
#    paragraphs that look English are untranslated and dropped; a paragraph seen
#    before is dropped) and cuts it at paragraph boundaries into documents of
#    about 12,000 characters, in texts/LANG/ of the cache.
# 3. Builds a PAN-PC-10-style corpus per language with `pan-detect corpus` (seed
#    SEED, document sizes DOC_CHARS; 0.6 to 1.1 MB each: all the translated
#    text), cases within one language.
# 4. Prints `eval/run.sh CORPUS --preset best` and `--preset pan09` per language
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
PACKAGE=debian-handbook=11.20220922
languages=("$@")
if [[ ${#languages[@]} == 0 ]]; then
    languages=(ar-MA fa-IR ru-RU zh-CN ja-JP de-DE)
fi

source "$root/eval/common.sh"
require_tools apt-get dpkg-deb python3
build_release

debs=$LANGUAGES_DIR/debs
texts=$LANGUAGES_DIR/texts
deb_name=${PACKAGE%%=*}_${PACKAGE#*=}_all.deb

# --- 1. the package ------------------------------------------------------------------
if [[ ${REFETCH:-0} == 1 ]]; then
    rm -rf -- "$debs" "$texts"
fi
deb=$debs/$deb_name
if [[ ! -f $deb ]]; then
    mkdir -p "$debs"
    shared=${INDEPENDENT_DIR:-/tmp/pan-detect-independent}/debs/$deb_name
    if [[ -f $shared ]]; then
        cp -- "$shared" "$deb"
    else
        # `apt-get download` writes to the current directory; that the _apt user
        # cannot write there only costs a warning, which is left out.
        (cd "$debs" && apt-get download -q "$PACKAGE") 2>&1 | grep -v '^W: Download is performed unsandboxed' || true
        if [[ ! -f $deb ]]; then
            echo "eval/$(basename "$0"): apt-get download $PACKAGE failed (apt-get update first?)" >&2
            exit 1
        fi
    fi
fi

# --- 2. paragraphs -> documents --------------------------------------------------------
stamp=$( (cat "$0" "$deb"; echo "${languages[*]}") | sha256sum | cut -d' ' -f1)
if [[ $(cat "$texts/STAMP" 2>/dev/null) != "$stamp" ]]; then
    extract=$LANGUAGES_DIR/extract
    rm -rf -- "$extract" "$texts" "$texts.partial"
    mkdir -p "$extract" "$texts.partial"
    dpkg-deb -x "$deb" "$extract"
    PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)" python3 - "$extract/usr/share/doc/debian-handbook/html" "$texts.partial" "${languages[@]}" <<'PY'
import html.parser, os, re, sys

html_dir, out, languages = sys.argv[1], sys.argv[2], sys.argv[3:]


from documents import group
from handbook import HandbookPage, looks_english


manifest = []
for language in languages:
    directory = os.path.join(html_dir, language)
    seen, kept = set(), []
    for name in sorted(os.listdir(directory)):
        if not name.endswith('.html'):
            continue
        page = HandbookPage()
        with open(os.path.join(directory, name), encoding='utf-8') as f:
            page.feed(f.read())
        for p in page.paragraphs:
            key = ' '.join(re.findall(r'\w+', p.lower()))
            if looks_english(p) or len(key) < 20:
                continue
            if key not in seen:
                seen.add(key)
                kept.append(p)
    documents = group(kept, target=12000, min_last=4000)
    os.makedirs(os.path.join(out, language))
    total = 0
    for number, document in enumerate(documents, 1):
        text = '\n\n'.join(document) + '\n'
        total += len(text)
        with open(os.path.join(out, language, 'handbook-%03d.txt' % number), 'w', encoding='utf-8') as f:
            f.write(text)
    manifest.append('%s\t%d\t%d' % (language, len(documents), total))

with open(os.path.join(out, 'MANIFEST'), 'w') as f:
    f.write('language\tdocuments\tcharacters\n' + '\n'.join(manifest) + '\n')
PY
    echo "$stamp" >"$texts.partial/STAMP"
    mv -- "$texts.partial" "$texts"
    rm -rf -- "$extract"
fi
echo "== texts ($texts, $deb_name)"
awk -F'\t' '{ printf "   %-9s %10s %12s\n", $1, $2, $3 }' "$texts/MANIFEST"

# --- 3. and 4. a corpus per language, both presets --------------------------------------
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
        echo
        echo "== $language: eval/run.sh $corpus --preset $preset"
        "$root/eval/run.sh" "$corpus" --preset "$preset" | tee "$LANGUAGES_DIR/table-$language-$preset.txt"
        overall=$(awk '$1 == "all" || $1 == "overall" { print $4; exit }' "$LANGUAGES_DIR/table-$language-$preset.txt")
        line="$line  $preset ${overall:-?}"
    done
    summary+=("$line")
done
echo
echo "== overall plagdet per language"
printf '   %s\n' "${summary[@]}"
