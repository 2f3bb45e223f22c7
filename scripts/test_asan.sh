#!/usr/bin/env bash
# The second CI command: the whole test suite (fuzz targets included) built
# with AddressSanitizer and UndefinedBehaviorSanitizer (cmake --preset asan,
# into build-asan/). Any report fails the run. Leak checking is off: an
# index lives until the process exits on purpose (see CmdTrace).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/corpus.sh
cmake --preset asan >/dev/null
ninja -C build-asan -j"$(nproc)" "$@"
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-$(mktemp -d)}"   # never the user's index cache
ctest --preset asan -j"$(nproc)"
