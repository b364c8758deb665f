#!/bin/bash
# Configure and build nfswb in the source tree.  Extra arguments go to
# ./configure (e.g. --enable-sanitizers).
set -euo pipefail
cd "$(dirname "$0")/.."
autoreconf -fi >/dev/null
./configure -q "$@"
make -j"$(nproc)" >/dev/null
