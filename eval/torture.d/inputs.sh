# Sourced by eval/torture.sh: the hostile inputs of issue 68. Names XML
# cannot hold (detect, index create, check, eval), per-pair reports of one
# name, tens of thousands of detections in one file, endless pairs and
# synonyms files, a text followed by a sparse hole, a pairs file with a
# byte-order mark, ground truth without cases in --out, a directory named
# like a document.
# shellcheck shell=bash

in_dir=$tmp/inputs
in_src=$in_dir/src in_susp=$in_dir/susp
mkdir -p "$in_src" "$in_susp"
cp "$root"/corpus-fixtures/pan/source-documents/source-document0000[1-4].txt "$in_src/"
cp "$root"/corpus-fixtures/pan/suspicious-documents/suspicious-document0000[1-4].txt "$in_susp/"
in_truth=$root/corpus-fixtures/pan/suspicious-documents

# pd_bounded SECONDS ARGS...: pd under a 4 GB address-space limit, killed
# after SECONDS (exit 124); its wall time in $took.
pd_bounded() {
    local seconds=$1 a b status
    shift
    a=$(date +%s%N)
    timeout "$seconds" bash -c 'ulimit -v 4000000; exec "$0" "$@"' "$bin" "$@" 2>"$tmp/err"
    status=$?
    b=$(date +%s%N)
    took=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (b - a) / 1e9 }')
    if [[ $status == 101 ]] || grep -q panicked "$tmp/err"; then
        panics=$((panics + 1))
        notes+=("$name: panic: pan-detect $*")
    fi
    return $status
}

# xml_well_formed FILE...: true when Python's minidom (what PAN's scripts use) parses each.
xml_well_formed() {
    python3 -c 'import sys, xml.dom.minidom as m; [m.parse(f) for f in sys.argv[1:]]' "$@" 2>/dev/null
}

begin "control characters in names"
ctl=$'ctl\x01.txt'
cp "$in_susp/suspicious-document00001.txt" "$in_susp/$ctl"
cp "$in_src/source-document00001.txt" "$in_src/$(printf 'src\x02.txt')"
pd detect --source-dir "$in_src" --suspicious-dir "$in_susp" --out "$in_dir/ctl-out" --quiet
status=$?
outcome "$([[ $status == 0 ]] && echo 1)" "detect exited $status"
outcome "$(grep -q 'ctl\\u{1}.txt: name holds U+0001.*skipped' "$tmp/err" && echo 1)" "no warning naming ctl\\u{1}.txt"
outcome "$(grep -q 'src\\u{2}.txt: name holds U+0002.*skipped' "$tmp/err" && echo 1)" "no warning naming src\\u{2}.txt"
outcome "$([[ ! -e $in_dir/ctl-out/ctl$'\x01'.xml ]] && echo 1)" "a report for $ctl"
outcome "$(xml_well_formed "$in_dir/ctl-out"/*.xml && echo 1)" "a report minidom cannot parse"
outcome "$(reports_parse "$in_dir/ctl-out" "$in_truth" && echo 1)" "eval skips a report of detect"
pd index create --docs "$in_src" --index "$in_dir/ctl-idx" --quiet
status=$?
outcome "$([[ $status == 0 ]] && grep -q 'src\\u{2}.txt: name holds' "$tmp/err" && echo 1)" "index create: exit $status, $(head -1 "$tmp/err")"
pd check --index "$in_dir/ctl-idx" --format pan-xml --out "$in_dir/ctl-check" "$in_susp/$ctl" "$in_susp/suspicious-document00001.txt"
status=$?
outcome "$([[ $status == 0 && ! -e $in_dir/ctl-check/ctl$'\x01'.xml ]] && grep -q 'ctl\\u{1}.txt: name holds' "$tmp/err" && echo 1)" \
    "check --format pan-xml: exit $status, $(head -1 "$tmp/err")"
outcome "$(xml_well_formed "$in_dir/ctl-check"/*.xml && echo 1)" "a check report minidom cannot parse"
rm -- "$in_susp/$ctl" "$in_src/$(printf 'src\x02.txt')"
# eval skips detections that XML forbids, raw or as a character reference, as minidom refuses them.
mkdir -p "$in_dir/forbidden"
for kind in raw nul reference; do
    case $kind in
        raw) reference='source\001.txt' ;;
        nul) reference='source\000.txt' ;;
        reference) reference='source&#1;.txt' ;;
    esac
    # shellcheck disable=SC2059 # the format holds the escaped character
    printf "<document reference=\"suspicious-document00001.txt\">\n<feature name=\"detected-plagiarism\" \
this_offset=\"0\" this_length=\"10\" source_reference=\"$reference\" source_offset=\"0\" source_length=\"10\"/>\n\
</document>\n" >"$in_dir/forbidden/suspicious-document00001.xml"
    xml_well_formed "$in_dir/forbidden/suspicious-document00001.xml" && notes+=("$name: minidom parses the $kind case")
    pd eval --truth "$in_truth" --detections "$in_dir/forbidden" >/dev/null
    outcome "$(grep -q 'suspicious-document00001.xml.*file skipped' "$tmp/err" && echo 1)" "eval did not skip the $kind case"
done
end

begin "per-pair report names collide"
mkdir -p "$in_dir/pp-src" "$in_dir/pp-susp"
cp "$in_src/source-document00001.txt" "$in_dir/pp-src/c.txt"
cp "$in_src/source-document00001.txt" "$in_dir/pp-src/b-c.txt"
cp "$in_susp/suspicious-document00001.txt" "$in_dir/pp-susp/a-b.txt"
cp "$in_susp/suspicious-document00001.txt" "$in_dir/pp-susp/a.txt"
printf 'a-b.txt c.txt\na.txt b-c.txt\n' >"$in_dir/pp-pairs"
for pairs in "" "$in_dir/pp-pairs"; do
    rm -rf "$in_dir/pp-out"
    pd detect --source-dir "$in_dir/pp-src" --suspicious-dir "$in_dir/pp-susp" --out "$in_dir/pp-out" --layout per-pair \
        ${pairs:+--pairs "$pairs"} --quiet
    status=$?
    outcome "$([[ $status == 1 && $(wc -l <"$tmp/err") == 1 ]] && grep -q '(a-b.txt, c.txt) and the pair (a.txt, b-c.txt) would both be written as a-b-c.xml' "$tmp/err" && echo 1)" \
        "per-pair ${pairs:+with pairs }: exit $status, $(head -1 "$tmp/err")"
    outcome "$([[ -z $(ls -A "$in_dir/pp-out" 2>/dev/null) ]] && echo 1)" "per-pair ${pairs:+with pairs }: something was written"
done
end

begin "many detections in one file (eval)"
mkdir -p "$in_dir/many-truth"
printf '<document reference="s.txt">\n<feature name="plagiarism" this_offset="0" this_length="1000" source_reference="r.txt" source_offset="0" source_length="1000"/>\n</document>\n' \
    >"$in_dir/many-truth/s.xml"
for n in 30000 60000; do
    for step in 10 0; do
        mkdir -p "$in_dir/many-$n-$step"
        awk -v n="$n" -v step="$step" 'BEGIN {
            print "<document reference=\"s.txt\">"
            for (i = 0; i < n; i++)
                printf "  <feature name=\"detected-plagiarism\" this_offset=\"%d\" this_length=\"50\" source_reference=\"r.txt\" source_offset=\"%d\" source_length=\"50\"/>\n", i * step, i * step
            print "</document>"
        }' >"$in_dir/many-$n-$step/s.xml"
        pd_bounded 60 eval --truth "$in_dir/many-truth" --detections "$in_dir/many-$n-$step" >/dev/null
        status=$?
        kind=$([[ $step == 0 ]] && echo identical || echo distinct)
        outcome "$([[ $status == 0 ]] && awk -v t="$took" 'BEGIN { exit !(t < 20) }' && echo 1)" \
            "eval of $n $kind detections: exit $status after $took s"
        notes+=("$name: $n $kind detections evaluated in $took s")
    done
done
end

begin "endless inputs (/dev/zero)"
for flag in --pairs --synonyms; do
    pd_bounded 30 detect --source-dir "$in_src" --suspicious-dir "$in_susp" --out "$in_dir/zero-out" "$flag" /dev/zero
    status=$?
    outcome "$([[ $status == 1 && $(wc -l <"$tmp/err") == 1 ]] && grep -q '/dev/zero: .*larger than 268435456 bytes' "$tmp/err" && echo 1)" \
        "$flag /dev/zero: exit $status after $took s, $(head -1 "$tmp/err")"
done
pd_bounded 30 eval --truth "$in_truth" --detections "$in_truth" --pairs /dev/zero
status=$?
outcome "$([[ $status != 0 && $status != 124 ]] && grep -q '/dev/zero: .*larger than 268435456 bytes' "$tmp/err" && echo 1)" \
    "eval --pairs /dev/zero: exit $status after $took s, $(head -1 "$tmp/err")"
end

begin "a text followed by a sparse hole"
mkdir -p "$in_dir/hole-susp"
cp "$in_susp/suspicious-document00001.txt" "$in_dir/hole-susp/"
for _ in 1 2 3 4 5; do cat "$in_susp"/suspicious-document0000[1-4].txt; done >"$in_dir/hole-susp/hole.txt"
truncate -s +1G "$in_dir/hole-susp/hole.txt"
/usr/bin/time -f %M -o "$tmp/rss" "$bin" detect --source-dir "$in_src" --suspicious-dir "$in_dir/hole-susp" \
    --out "$in_dir/hole-out" --quiet 2>"$tmp/err"
status=$?
rss=$(tail -1 "$tmp/rss")
outcome "$([[ $status == 0 ]] && grep -q 'hole.txt: .*NUL bytes.*looks binary; skipped' "$tmp/err" && echo 1)" \
    "exit $status, $(head -1 "$tmp/err")"
outcome "$([[ $rss -lt 500000 ]] && echo 1)" "max RSS $rss KB"
outcome "$([[ ! -e $in_dir/hole-out/hole.xml ]] && echo 1)" "the hole was reported as text"
notes+=("$name: max RSS $rss KB")
rm -rf "$in_dir/hole-susp"
end

begin "a pairs file with a byte-order mark"
printf '\xef\xbb\xbfsuspicious-document00001.txt source-document00001.txt\r\n' >"$in_dir/bom-pairs"
pd detect --source-dir "$in_src" --suspicious-dir "$in_susp" --out "$in_dir/bom-out" --pairs "$in_dir/bom-pairs" --quiet
status=$?
outcome "$([[ $status == 0 && -f $in_dir/bom-out/suspicious-document00001.xml ]] && echo 1)" "exit $status, $(head -1 "$tmp/err")"
printf 'suspicious-document00001.txt\xe2\x80\x8b source-document00001.txt\n' >"$in_dir/bom-pairs"
pd detect --source-dir "$in_src" --suspicious-dir "$in_susp" --out "$in_dir/bom-out" --pairs "$in_dir/bom-pairs" --quiet
status=$?
outcome "$([[ $status == 1 ]] && grep -qF 'suspicious-document00001.txt\u{200b}' "$tmp/err" && echo 1)" \
    "an invisible character is not shown escaped: $(head -1 "$tmp/err")"
end

begin "ground truth without cases in --out"
mkdir -p "$in_dir/truth-out"
printf '<?xml version="1.0" encoding="UTF-8"?>\n<document reference="suspicious-document00001.txt">\n</document>\n' \
    >"$in_dir/truth-out/suspicious-document00001.xml"
before=$(md5sum <"$in_dir/truth-out/suspicious-document00001.xml")
pd detect --source-dir "$in_src" --suspicious-dir "$in_susp" --out "$in_dir/truth-out" --quiet
status=$?
outcome "$([[ $status == 1 && $(md5sum <"$in_dir/truth-out/suspicious-document00001.xml") == "$before" ]] && echo 1)" \
    "exit $status, $(head -1 "$tmp/err")"
outcome "$([[ $(find "$in_dir/truth-out" -type f | wc -l) == 1 ]] && echo 1)" "something was written beside it"
# What pan-detect wrote, it replaces.
rm -rf "$in_dir/truth-out"
for run in first second; do
    pd detect --source-dir "$in_src" --suspicious-dir "$in_susp" --out "$in_dir/truth-out" --quiet
    status=$?
    outcome "$([[ $status == 0 ]] && echo 1)" "$run run into its own reports: exit $status, $(head -1 "$tmp/err")"
done
end

begin "a directory named x.txt"
mkdir -p "$in_dir/dir-susp/x.txt"
cp "$in_susp/suspicious-document00001.txt" "$in_dir/dir-susp/"
pd detect --source-dir "$in_src" --suspicious-dir "$in_dir/dir-susp" --out "$in_dir/dir-out" --quiet
status=$?
outcome "$([[ $status == 0 ]] && grep -q 'x.txt: a folder, skipped (use --recursive)' "$tmp/err" && echo 1)" \
    "exit $status, $(head -1 "$tmp/err")"
end
