#!/usr/bin/env bash
# Whether PDF text extraction is linear in the number of pages: extracts flat
# page trees (every page a kid of one Pages node, one line of text a page) of
# 1,000, 3,000 and 10,000 pages, made by the test helper `testutil::flat_pdf`,
# and prints the seconds of each and its time a page over that of the
# 1,000-page PDF: about 1 when extraction is linear (a per-page lookup through
# the page tree made it 2.2 and 21.6).
#
#   eval/pdf-pages.sh
#
# It runs the ignored benchmark test
# analysis::extract::pdf::tests::time_a_page_stays_flat_as_pages_grow in
# release mode (timed tests are not run by `cargo test`). Machine load changes
# the times; the ratios matter. About a minute after the build.
set -euo pipefail
source "$(dirname "$0")/common.sh"
if [[ ${1:-} == -h || ${1:-} == --help ]]; then
    usage
    exit 0
fi
root=$(cd "$(dirname "$0")/.." && pwd)
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
cargo test --release --locked --quiet --manifest-path "$root/Cargo.toml" --lib \
    analysis::extract::pdf::tests::time_a_page_stays_flat_as_pages_grow -- --ignored --nocapture --exact
