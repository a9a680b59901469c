# shellcheck shell=bash
# Sourced by eval/torture.sh (PARTS=archive runs only this file): what the
# archive may delete and which directories it takes, its name table without
# --verify, and PDF extraction of a many-page flat page tree (issue 68).

# tree_sum DIR: one checksum of every path and file's bytes under DIR.
tree_sum() { (cd "$1" && find . -print0 | sort -z | xargs -0 md5sum 2>/dev/null | md5sum); }

# refused WHAT: counts a run that must have failed with one line on stderr.
refused() {
    local status=$1
    outcome "$([[ $status != 0 && $status != 101 && $(wc -l <"$tmp/err") == 1 ]] && echo 1)" \
        "$2: exit $status, $(head -2 "$tmp/err" | tr '\n' ' ')"
}

theses=$root/corpus-fixtures/pan/source-documents
ar=$tmp/archive-part

begin "archive deletes only its own (D1)"
# gen-theses beside the index: the documents in a folder of the index directory.
mkdir -p "$ar/r/gen-theses"
cp "$theses"/*.txt "$ar/r/gen-theses/"
sum=$(tree_sum "$ar/r")
pd index create --docs "$ar/r/gen-theses" --index "$ar/r" --quiet
refused $? "create --docs r/gen-theses --index r"
outcome "$([[ $(tree_sum "$ar/r") == "$sum" ]] && echo 1)" "r/gen-theses changed"
# gen-2023 inside when the documents and the index are one directory.
mkdir -p "$ar/same/gen-2023"
cp "$theses"/*.txt "$ar/same/gen-2023/"
cp "$theses"/source-document0000[1-3].txt "$ar/same/"
sum=$(tree_sum "$ar/same")
pd index create --docs "$ar/same" --index "$ar/same" --quiet
refused $? "create --docs D --index D"
outcome "$([[ $(tree_sum "$ar/same") == "$sum" ]] && echo 1)" "D or D/gen-2023 changed"
# The index inside the documents, and the documents inside the index.
pd index create --docs "$ar/same" --index "$ar/same/idx" --quiet
refused $? "create with the index inside the documents"
outcome "$([[ ! -e $ar/same/idx ]] && echo 1)" "the refused index directory inside the documents was made"
pd index create --docs "$ar/r/gen-theses" --index "$ar/r" --quiet
refused $? "create with the documents inside the index"
# A non-empty folder that is no index.
mkdir -p "$ar/notes/gen-backup"
echo "my notes" >"$ar/notes/notes.txt"
cp "$theses/source-document00001.txt" "$ar/notes/gen-backup/"
sum=$(tree_sum "$ar/notes")
pd index create --docs "$theses" --index "$ar/notes" --quiet
refused $? "create into a non-empty folder that is no index"
outcome "$([[ $(tree_sum "$ar/notes") == "$sum" ]] && echo 1)" "the non-empty folder changed"
# gen-backup, gen-2023 and gen-theses kept in a live index through update and merge.
pd index create --docs "$docs_a" --index "$ar/idx" --quiet
outcome "$([[ $? == 0 ]] && echo 1)" "create into a new directory failed"
cp -r "$ar/idx/gen-000001" "$ar/idx/gen-backup"
cp -r "$ar/r/gen-theses" "$ar/idx/gen-theses"
cp -r "$ar/same/gen-2023" "$ar/idx/gen-2023"
sums() { for d in gen-backup gen-theses gen-2023; do tree_sum "$ar/idx/$d"; done; }
sum=$(sums)
pd index update --docs "$docs_b" --index "$ar/idx" --quiet
outcome "$([[ $? == 0 && $(sums) == "$sum" ]] && echo 1)" "update removed or changed a folder of the user's"
pd index update --docs "$docs_b" --index "$ar/idx" --quiet
outcome "$([[ $? == 0 && $(sums) == "$sum" ]] && echo 1)" "an update with nothing to do removed a folder of the user's"
pd index merge --index "$ar/idx" --quiet
outcome "$([[ $? == 0 && $(sums) == "$sum" ]] && echo 1)" "merge removed or changed a folder of the user's"
own=$(find "$ar/idx" -maxdepth 1 -name 'gen-[0-9][0-9][0-9][0-9][0-9][0-9]' | wc -l)
outcome "$([[ $own == 1 ]] && echo 1)" "$own generations of the index's own left, not 1"
pd index update --docs "$ar/idx/gen-theses" --index "$ar/idx" --quiet
refused $? "update from documents inside the index"
outcome "$([[ $(sums) == "$sum" ]] && echo 1)" "a refused update changed a folder of the user's"
end

begin "name table damaged, no --verify"
pd index create --docs "$docs_a" --index "$ar/names" --quiet
names=$(find "$ar/names" -name names.bin)
# A digit of a name changed into another: valid UTF-8, in bounds, another name.
at=$(grep -abo '[0-8]\.txt' "$names" | head -1 | cut -d: -f1)
digit=$(dd if="$names" bs=1 skip="$at" count=1 status=none)
printf '%s' "$((digit + 1))" | dd of="$names" bs=1 seek="$at" conv=notrunc status=none
for command in "check --index $ar/names $probe" "similar --index $ar/names" "index stats --index $ar/names"; do
    # shellcheck disable=SC2086 # the words of the command
    pd $command >/dev/null
    status=$?
    outcome "$([[ $status != 0 ]] && grep -q 'names.bin: checksum mismatch' "$tmp/err" && echo 1)" \
        "$command: exit $status, $(head -1 "$tmp/err")"
done
end

begin "many-page flat PDF (D8)"
# 15,000 pages, every one a kid of the one Pages node: 224 s when each page
# was looked up through the whole page tree; read in 60 s or it fails.
python3 - "$ar/flat.pdf" 15000 <<'PY'
import sys
path, pages = sys.argv[1], int(sys.argv[2])
pdf, offsets = bytearray(b"%PDF-1.4\n"), []
def obj(body):
    offsets.append(len(pdf))
    pdf.extend(b"%d 0 obj\n%s\nendobj\n" % (len(offsets), body))
kids = b" ".join(b"%d 0 R" % (4 + 2 * i) for i in range(pages))
obj(b"<< /Type /Catalog /Pages 2 0 R >>")
obj(b"<< /Type /Pages /Kids [%s] /Count %d /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> >>" % (kids, pages))
obj(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
for i in range(pages):
    content = b"BT /F1 12 Tf 72 720 Td (Leaf %s holds its own words) Tj ET" % "".join("bcdfghjklm"[int(d)] + "a" for d in str(i)).encode()
    obj(b"<< /Type /Page /Parent 2 0 R /Contents %d 0 R >>" % (5 + 2 * i))
    obj(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content))
xref = len(pdf)
pdf.extend(b"xref\n0 %d\n0000000000 65535 f \n" % (len(offsets) + 1))
pdf.extend(b"".join(b"%010d 00000 n \n" % o for o in offsets))
pdf.extend(b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(offsets) + 1, xref))
open(path, "wb").write(pdf)
PY
started=$(date +%s)
timeout 60 "$bin" text "$ar/flat.pdf" --out "$ar/flat-text" --quiet 2>"$tmp/err"
status=$?
seconds=$(($(date +%s) - started))
words=$(grep -o 'Leaf' "$ar/flat-text/flat.pdf.txt" 2>/dev/null | wc -l)
outcome "$([[ $status == 0 && $words == 15000 ]] && echo 1)" \
    "text of a 15,000-page flat PDF: exit $status (124: over 60 s) after $seconds s, $words of 15000 pages read"
notes+=("many-page flat PDF: 15,000 pages read in $seconds s")
end
