#!/usr/bin/env bash
# Every test: install what is missing, provide the real PyTorch trees
# (scripts/corpus.sh), build, and run the whole CTest suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# The MCP client tests (tests/mcp_sdk_test.sh, tests/mcp_inspector_test.sh)
# need node and npm: Debian's, where none is installed (an installed node,
# such as NodeSource's, already brings its npm and is kept).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "test: installing nodejs npm (Debian) for the MCP client tests"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null ||
    echo "test: could not install nodejs npm; the MCP client tests will be skipped"
fi
scripts/corpus.sh
scripts/build.sh
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-$(mktemp -d)}"   # tests never touch the user's index cache
ctest --test-dir build --output-on-failure -j"$(nproc)"
