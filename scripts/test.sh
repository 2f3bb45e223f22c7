#!/usr/bin/env bash
# Every test: install what is missing, provide the real PyTorch trees
# (scripts/corpus.sh), build, and run the whole CTest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/corpus.sh
scripts/build.sh
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-$(mktemp -d)}"   # tests never touch the user's index cache
ctest --test-dir build --output-on-failure -j"$(nproc)"
