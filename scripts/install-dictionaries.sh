#!/usr/bin/env bash
# Installs the bilingual dictionaries of cross-language detection (issue 67)
# from Debian's registry: FreeDict's Spanish, French and German into English
# dictionaries and the English into Spanish and French ones (read inverted),
# in dictd format, into /usr/share/dictd, where `pan-detect detect` looks by
# default (--dictionary DIR elsewhere). Nothing is fetched at run time.
#
#   scripts/install-dictionaries.sh [--no-german]
#
# Sizes (Debian 2022.04.21-1): spa-eng 0.2 MB installed, fra-eng 0.4 MB,
# eng-spa and eng-fra about as much, deu-eng 29 MB (a 21 MB download);
# --no-german leaves deu-eng out.
# Run as root (or through sudo); apt-get's own errors stop the script.
set -euo pipefail

packages=(dict-freedict-spa-eng dict-freedict-eng-spa dict-freedict-fra-eng dict-freedict-eng-fra)
case ${1:-} in
    --no-german) ;;
    "") packages+=(dict-freedict-deu-eng) ;;
    -h | --help)
        awk 'NR == 1 { next } /^#/ { sub(/^# ?/, ""); print; next } { exit }' "$0"
        exit 0
        ;;
    *)
        echo "install-dictionaries.sh: unknown argument '$1' (expected --no-german)" >&2
        exit 2
        ;;
esac

sudo=()
if [[ $(id -u) -ne 0 ]]; then
    sudo=(sudo)
fi
"${sudo[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
ls -l /usr/share/dictd/freedict-*.index
