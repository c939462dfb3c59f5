#!/usr/bin/env bash
# Install Nsight Systems 2022.4 from Debian bookworm contrib/non-free (no GPU needed for
# `nsys stats` / `nsys export`). Idempotent: does nothing if nsys 2022.4 is already installed.
set -euo pipefail

want="2022.4"
list=/etc/apt/sources.list.d/debian-nonfree.sources
base=/etc/apt/sources.list.d/debian.sources

installed() {
    dpkg-query -W -f='${Status} ${Version}\n' nsight-systems nsight-systems-target 2>/dev/null |
        grep -c "^install ok installed $want" | grep -qx 2
}

if installed && [ -x /usr/bin/nsys ] && command -v /usr/bin/time >/dev/null 2>&1; then
    echo "nsys $want already installed: $(/usr/bin/nsys --version)"
    exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

if [ ! -f "$list" ]; then
    # Reuse the mirror URI and keyring of the first stanza of the stock debian.sources.
    uri=$(awk '/^URIs:/ {print $2; exit}' "$base" 2>/dev/null || true)
    key=$(awk '/^Signed-By:/ {print $2; exit}' "$base" 2>/dev/null || true)
    if [ -z "$uri" ]; then echo "no Debian mirror found in $base; add contrib non-free by hand" >&2; exit 1; fi
    key=${key:-/usr/share/keyrings/debian-archive-keyring.gpg}
    printf 'Types: deb\nURIs: %s\nSuites: bookworm\nComponents: contrib non-free\nSigned-By: %s\n' \
        "$uri" "$key" | $sudo tee "$list" >/dev/null
fi

$sudo apt-get update
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y nsight-systems nsight-systems-target
command -v /usr/bin/time >/dev/null 2>&1 || \
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y time

/usr/bin/nsys --version
