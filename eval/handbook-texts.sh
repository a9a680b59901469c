# Shared by eval/languages.sh and eval/reorder.sh: the Debian Administrator's
# Handbook's paragraph text, one directory of documents per language. Source it
# after eval/common.sh, then call `handbook_texts DIR LANG...`.

# The package the texts come from (pinned: the corpora must not change under us).
HANDBOOK_PACKAGE=debian-handbook=11.20220922

# handbook_texts DIR LANG...: makes DIR/texts/LANG/handbook-NNN.txt for each LANG
# (the handbook's directory names: en-US is the original, the others are
# translations) and sets `texts` to DIR/texts.
#
# 1. Fetches the package into DIR/debs (`apt-get download`, not installed; the
#    same file in eval/independent-corpus.sh's cache, INDEPENDENT_DIR, is reused
#    when present). REFETCH=1 downloads it and makes the documents again.
# 2. Per language, keeps the paragraph text (no program listings, screens or
#    tables; in a translation, paragraphs that look English are untranslated and
#    dropped, in en-US only those are kept; a paragraph seen before is dropped)
#    and cuts it at paragraph boundaries into documents of about 12,000
#    characters. A language's documents are made again only when the package,
#    this file or the Python helpers change (DIR/texts/LANG.stamp).
# 3. Prints one line per language: documents and characters.
handbook_texts() {
    local dir=$1
    shift
    local debs=$dir/debs
    local deb_name=${HANDBOOK_PACKAGE%%=*}_${HANDBOOK_PACKAGE#*=}_all.deb
    local eval_dir
    eval_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
    texts=$dir/texts
    if [[ ${REFETCH:-0} == 1 ]]; then
        rm -rf -- "$debs" "$texts"
    fi
    local deb=$debs/$deb_name
    if [[ ! -f $deb ]]; then
        mkdir -p "$debs"
        local shared=${INDEPENDENT_DIR:-/tmp/pan-detect-independent}/debs/$deb_name
        if [[ -f $shared ]]; then
            cp -- "$shared" "$deb"
        else
            # `apt-get download` writes to the current directory; that the _apt user
            # cannot write there only costs a warning, which is left out.
            (cd "$debs" && apt-get download -q "$HANDBOOK_PACKAGE") 2>&1 |
                grep -v '^W: Download is performed unsandboxed' || true
            if [[ ! -f $deb ]]; then
                echo "eval/$(basename "$0"): apt-get download $HANDBOOK_PACKAGE failed (apt-get update first?)" >&2
                exit 1
            fi
        fi
    fi

    local code_stamp stale=() language
    code_stamp=$(cat "$eval_dir/handbook-texts.sh" "$eval_dir/handbook.py" "$eval_dir/documents.py" "$deb" |
        sha256sum | cut -d' ' -f1)
    mkdir -p "$texts"
    for language in "$@"; do
        if [[ $(cat "$texts/$language.stamp" 2>/dev/null) != "$code_stamp" ]]; then
            stale+=("$language")
        fi
    done
    if [[ ${#stale[@]} -gt 0 ]]; then
        local extract=$dir/extract
        rm -rf -- "$extract"
        mkdir -p "$extract"
        dpkg-deb -x "$deb" "$extract"
        local html=$extract/usr/share/doc/debian-handbook/html
        for language in "${stale[@]}"; do
            if [[ ! -d $html/$language ]]; then
                echo "eval/$(basename "$0"): $language: not a language of the handbook (it has: $(ls "$html" | paste -sd ' '))" >&2
                exit 2
            fi
            rm -rf -- "$texts/$language" "$texts/$language.partial" "$texts/$language.stamp"
            PYTHONPATH=$eval_dir python3 - "$html/$language" \
                "$texts/$language.partial" "$language" <<'PY'
import os, re, sys

html_dir, out, language = sys.argv[1:]

from documents import group
from handbook import HandbookPage, looks_english

# The original is English: there, the paragraphs that look English are the text.
original = language.startswith('en-')
seen, kept = set(), []
for name in sorted(os.listdir(html_dir)):
    if not name.endswith('.html'):
        continue
    page = HandbookPage()
    with open(os.path.join(html_dir, name), encoding='utf-8') as f:
        page.feed(f.read())
    for p in page.paragraphs:
        key = ' '.join(re.findall(r'\w+', p.lower()))
        if looks_english(p) != original or len(key) < 20:
            continue
        if key not in seen:
            seen.add(key)
            kept.append(p)
documents = group(kept, target=12000, min_last=4000)
os.makedirs(out)
total = 0
for number, document in enumerate(documents, 1):
    text = '\n\n'.join(document) + '\n'
    total += len(text)
    with open(os.path.join(out, 'handbook-%03d.txt' % number), 'w', encoding='utf-8') as f:
        f.write(text)
with open(out + '.manifest', 'w') as f:
    f.write('%s\t%d\t%d\n' % (language, len(documents), total))
PY
            mv -- "$texts/$language.partial.manifest" "$texts/$language.manifest"
            mv -- "$texts/$language.partial" "$texts/$language"
            echo "$code_stamp" >"$texts/$language.stamp"
        done
        rm -rf -- "$extract"
    fi
    echo "== texts ($texts, $deb_name)"
    printf '   %-9s %10s %12s\n' language documents characters
    for language in "$@"; do
        awk -F'\t' '{ printf "   %-9s %10s %12s\n", $1, $2, $3 }' "$texts/$language.manifest"
    done
}
