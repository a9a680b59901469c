#!/usr/bin/env bash
# Builds a second evaluation corpus from texts independent of dev-en and scores
# both presets on it (issue 6: do not tune to dev-en alone).
#
#   eval/independent-corpus.sh
#
# 1. Fetches three Debian packages with `apt-get download` (pinned versions, not
#    installed) and unpacks them with `dpkg-deb -x`:
#      r-cran-janeaustenr  Jane Austen's six novels (English, about 720k words);
#      r-cran-tokenizers   Melville's "Moby Dick" (English, about 215k words);
#      debian-handbook     The Debian Administrator's Handbook, HTML in many
#                          languages: its English, German and Czech prose.
#    The R packages keep their texts in R lazy-load databases; a small Python 3
#    reader of R's serialization format takes the character vectors out. The
#    Gutenberg header and licence around Moby Dick are cut off. From the
#    handbook only paragraph text is kept (no program listings, screens or
#    tables), and from the German and Czech editions only paragraphs that are
#    translated (untranslated English paragraphs would duplicate the English
#    edition). A paragraph that already appeared (8 words or more) is dropped.
# 2. Cuts every work at paragraph boundaries into documents of about 3000 words,
#    one UTF-8 `.txt` per document (LANG-WORK-NNN.txt), in texts/ of the cache.
# 3. Builds a PAN-PC-10-style corpus from them with `pan-detect corpus` (all input
#    once, seed SEED, document sizes DOC_CHARS: about 130 source and 130
#    suspicious documents, about 500 cases, 9 MB), printing its README.txt summary.
# 4. Runs `eval/run.sh CORPUS --preset best` and `eval/run.sh CORPUS --preset pan09`
#    and prints both tables.
#
# None of these texts is in dev-en (NLTK movie_reviews, abc, webtext, genesis,
# udhr); pan-detect finds no passage shared between dev-en and them. The package
# files are kept and reused, the documents are made again when this script or a
# package file changed, and the corpus is rebuilt on every run (under a second).
# About 10 s in all on 2 cores, plus the download (37 MB) on the first run.
#
# Environment:
#   INDEPENDENT_DIR  cache directory (default /tmp/pan-detect-independent): debs/,
#                    texts/ (the documents, with a MANIFEST of works and word
#                    counts) and corpus-seedSEED/ (the corpus; corpus-seedSEED-synonyms/
#                    with SYNONYMS)
#   SEED             seed of the corpus builder (default 2026; eval/bench.sh uses
#                    20240601, the fixture corpus 3, dev-en 7)
#   DOC_CHARS        --doc-chars of the corpus builder (default 3k..100k)
#   SYNONYMS         a synonym file for the builder's semantic obfuscation (default
#                    none: those cases become random operations)
#   REFETCH=1        download the packages and make the documents again
# The binary is the release build, as in eval/run.sh (`cargo build --release`,
# CARGO_TARGET_DIR honoured). Needs apt-get and dpkg-deb (Debian), python3, and
# network access to Debian's archive on the first run; when a download fails as
# root it runs `apt-get update` once and retries.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
    exit 0
fi
INDEPENDENT_DIR=${INDEPENDENT_DIR:-/tmp/pan-detect-independent}
SEED=${SEED:-2026}
DOC_CHARS=${DOC_CHARS:-3k..100k}
# Pinned package versions (Debian bookworm), so that the texts are the same on
# every machine.
PACKAGES=(r-cran-janeaustenr=1.0.0-1 r-cran-tokenizers=0.3.0-1 debian-handbook=11.20220922)

source "$root/eval/common.sh"
require_tools apt-get dpkg-deb python3
build_release

debs=$INDEPENDENT_DIR/debs
extract=$INDEPENDENT_DIR/extract
texts=$INDEPENDENT_DIR/texts
corpus=$INDEPENDENT_DIR/corpus-seed$SEED${SYNONYMS:+-synonyms}

# --- 1. the packages -----------------------------------------------------------------
# deb_of NAME=VERSION: the downloaded package file, or nothing.
deb_of() {
    local found=("$debs/${1%%=*}_${1#*=}_"*.deb)
    [[ -f ${found[0]} ]] && echo "${found[0]}"
    return 0
}
start=$(date +%s.%N)
if [[ ${REFETCH:-0} == 1 ]]; then
    rm -rf -- "$debs" "$extract" "$texts"
fi
missing=0
for package in "${PACKAGES[@]}"; do
    [[ -n $(deb_of "$package") ]] || missing=1
done
if [[ $missing == 1 ]]; then
    rm -rf -- "$debs" "$extract" "$texts"
    mkdir -p "$debs"
    # `apt-get download` writes to the current directory; that the _apt user
    # cannot write there only costs a warning, which is left out.
    download() {
        local status=0
        (cd "$debs" && apt-get download -q "${PACKAGES[@]}") >"$debs/download.log" 2>&1 || status=$?
        grep -v '^W: Download is performed unsandboxed' "$debs/download.log" || true
        return "$status"
    }
    if ! download; then
        if [[ $(id -u) == 0 ]]; then
            echo "apt-get download failed; running apt-get update once and retrying"
            apt-get update -qq
            download
        else
            echo "eval/$(basename "$0"): apt-get download ${PACKAGES[*]} failed (apt-get update first?)" >&2
            exit 1
        fi
    fi
    for package in "${PACKAGES[@]}"; do
        if [[ -z $(deb_of "$package") ]]; then
            echo "eval/$(basename "$0"): $package was not downloaded" >&2
            exit 1
        fi
    done
fi

# --- 2. texts -> documents of about 3000 words -----------------------------------------
# Redone when this script or a package file changed.
stamp=$(cat "$0" "${debs}"/*.deb | sha256sum | cut -d' ' -f1)
if [[ ! -f $texts/MANIFEST || $(cat "$texts/STAMP" 2>/dev/null) != "$stamp" ]]; then
    rm -rf -- "$extract" "$texts" "$texts.partial"
    for package in "${PACKAGES[@]}"; do
        mkdir -p "$extract/${package%%=*}"
        dpkg-deb -x "$(deb_of "$package")" "$extract/${package%%=*}"
    done
    mkdir -p "$texts.partial"
    PYTHONPATH="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)" python3 - "$extract" "$texts.partial" <<'PY'
import bz2, gzip, html.parser, lzma, os, re, struct, sys, zlib

extract, out = sys.argv[1], sys.argv[2]
R_LIB = 'usr/lib/R/site-library'


# R serialization (format 2 and 3, XDR): just enough for the data objects of
# these packages (character vectors) and the index of a lazy-load database.
class Unserializer:
    def __init__(self, data):
        assert data[:2] == b'X\n', 'not an XDR R serialization'
        self.data, self.pos, self.refs = data, 2, []
        version = self.int()
        self.int(), self.int()  # writer and minimal reader R versions
        if version == 3:
            length = self.int()
            self.pos += length  # native encoding name

    def int(self):
        value = struct.unpack_from('>i', self.data, self.pos)[0]
        self.pos += 4
        return value

    def item(self):
        flags = self.int()
        kind, has_attr, has_tag = flags & 0xFF, flags & (1 << 9), flags & (1 << 10)
        if kind in (254, 242):  # NULL, empty environment
            return None
        if kind == 255:  # reference to an earlier symbol
            return self.refs[(flags >> 8 or self.int()) - 1]
        if kind == 1:  # symbol
            symbol = ('symbol', self.item())
            self.refs.append(symbol)
            return symbol
        if kind == 9:  # string (CHARSXP); bit 2 of the levels: latin-1
            n = self.int()
            if n == -1:
                return None
            raw = self.data[self.pos:self.pos + n]
            self.pos += n
            return raw.decode('latin-1' if (flags >> 12) & 4 else 'utf-8', 'replace')
        if kind == 2:  # pairlist: (tag, value) pairs
            pairs = []
            while True:
                if has_attr:
                    self.item()
                tag = self.item() if has_tag else None
                pairs.append((tag[1] if tag else None, self.item()))
                flags = self.int()
                if flags & 0xFF == 254:
                    return ('pairlist', pairs)
                if flags & 0xFF != 2:
                    raise ValueError('unexpected pairlist tail')
                has_attr, has_tag = flags & (1 << 9), flags & (1 << 10)
        n = self.int()
        if kind in (16, 19):  # character vector, list
            value = [self.item() for _ in range(n)]
        elif kind in (10, 13):  # logical, integer
            value = list(struct.unpack_from('>%di' % n, self.data, self.pos))
            self.pos += 4 * n
        elif kind == 14:  # double
            value = list(struct.unpack_from('>%dd' % n, self.data, self.pos))
            self.pos += 8 * n
        else:
            raise ValueError('unsupported R type %d' % kind)
        attributes = dict(self.item()[1]) if has_attr else {}
        return ('vector', value, attributes)


def named(vector):
    return dict(zip(vector[2]['names'][1], vector[1]))


def lazy_load(prefix):
    """The objects of an R lazy-load database (PREFIX.rdx + PREFIX.rdb) by name."""
    with gzip.open(prefix + '.rdx') as f:
        index = named(Unserializer(f.read()).item())
    with open(prefix + '.rdb', 'rb') as f:
        db = f.read()
    objects = {}
    for name, (offset, length) in ((k, v[1]) for k, v in named(index['variables']).items()):
        blob = db[offset:offset + length]
        size = struct.unpack('>I', blob[:4])[0]
        try:
            raw = zlib.decompress(blob[4:])
        except zlib.error:
            raw = {b'2': bz2.decompress, b'Z': lzma.decompress, b'0': bytes}[blob[4:5]](blob[5:])
        assert len(raw) == size, name
        objects[name] = Unserializer(raw).item()
    return objects


def paragraphs(text):
    text = text.replace('\ufeff', '').replace('\r\n', '\n').replace('\r', '\n')
    return [p.strip('\n') for p in re.split(r'\n[ \t]*\n', text) if p.strip()]


from documents import group
from handbook import HandbookPage, looks_english


def handbook(language, keep_english):
    directory = os.path.join(extract, 'debian-handbook', 'usr/share/doc/debian-handbook/html', language)
    result = []
    for name in sorted(os.listdir(directory)):
        if name.endswith('.html'):
            page = HandbookPage()
            with open(os.path.join(directory, name), encoding='utf-8') as f:
                page.feed(f.read())
            result += [p for p in page.paragraphs if looks_english(p) == keep_english]
    return result


works = []  # (language, work, paragraphs)
austen = lazy_load(os.path.join(extract, 'r-cran-janeaustenr', R_LIB, 'janeaustenr/data/Rdata'))
for name in ('sensesensibility', 'prideprejudice', 'mansfieldpark', 'emma', 'northangerabbey', 'persuasion'):
    lines = [line if line is not None else '' for line in austen[name][1]]
    works.append(('en', 'austen-' + name, paragraphs('\n'.join(lines))))

moby = lazy_load(os.path.join(extract, 'r-cran-tokenizers', R_LIB, 'tokenizers/data/Rdata'))['mobydick'][1][0]
start = moby.index('\n', moby.index('*** START OF')) + 1
end = moby.index("End of Project Gutenberg's Moby Dick")
body = [p for p in paragraphs(moby[start:end]) if not p.startswith('Produced by ')]
works.append(('en', 'melville-mobydick', body))

works.append(('en', 'debian-handbook', handbook('en-US', True)))
works.append(('de', 'debian-handbook', handbook('de-DE', False)))
works.append(('cs', 'debian-handbook', handbook('cs-CZ', False)))

seen = set()
manifest = []
for language, work, paras in works:
    kept = []
    for p in paras:
        key = ' '.join(re.findall(r'\w+', p.lower()))
        if len(key.split()) >= 8:
            if key in seen:
                continue
            seen.add(key)
        kept.append(p)
    documents = group(kept, target=3000, min_last=1000, size=lambda p: len(p.split()))
    total = 0
    for number, document in enumerate(documents, 1):
        text = '\n\n'.join(document) + '\n'
        total += len(text.split())
        with open(os.path.join(out, '%s-%s-%03d.txt' % (language, work, number)), 'w', encoding='utf-8') as f:
            f.write(text)
    manifest.append('%s\t%s\t%d\t%d' % (language, work, len(documents), total))

with open(os.path.join(out, 'MANIFEST'), 'w') as f:
    f.write('language\twork\tdocuments\twords\n' + '\n'.join(manifest) + '\n')
PY
    echo "$stamp" >"$texts.partial/STAMP"
    mv -- "$texts.partial" "$texts"
    rm -rf -- "$extract"
fi
echo "== texts ($texts)"
for package in "${PACKAGES[@]}"; do
    echo "   $(basename "$(deb_of "$package")")"
done
awk -F'\t' '{ printf "   %-9s %-28s %10s %10s\n", $1, $2, $3, $4 }
    NR > 1 { d += $3; w += $4 } END { printf "   %-38s %10d %10d\n", "total", d, w }' "$texts/MANIFEST"
awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "   (%.1f s)\n", b - a }'

# --- 3. the corpus ------------------------------------------------------------------------
echo
echo "== corpus ($corpus)"
start=$(date +%s.%N)
rm -rf -- "$corpus"
build=("$binary" corpus --texts "$texts" --out "$corpus" --seed "$SEED" --doc-chars "$DOC_CHARS" --quiet)
if [[ -n ${SYNONYMS:-} ]]; then
    build+=(--synonyms "$SYNONYMS")
fi
echo "   pan-detect ${build[*]:1}"
"${build[@]}"
awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "   built in %.1f s\n", b - a }'
sed -n '/^documents:/,/^case length histogram/p' "$corpus/README.txt" | sed '$d' | sed 's/^./   &/'

# --- 4. both presets --------------------------------------------------------------------
for preset in best pan09; do
    echo
    echo "== eval/run.sh $corpus --preset $preset"
    "$root/eval/run.sh" "$corpus" --preset "$preset"
done
