#!/usr/bin/env bash
# Runs mcp_sdk_test.mjs: `optrace mcp` under the official MCP TypeScript SDK
# client. A CTest; skipped (exit 77) where node/npm are missing, the SDK
# cannot be installed (offline) or the 2.6.0 tree is absent. The SDK is
# installed with npm's default registry into a cache directory outside the
# repository, once: ${OPTRACE_TEST_NODE_DIR:-~/.cache/optrace-test-node}.
#   tests/mcp_sdk_test.sh OPTRACE_BINARY
set -euo pipefail
optrace="$1"
here="$(cd "$(dirname "$0")" && pwd)"
sdk_version=1.32.2
tree="${OPTRACE_CORPUS:-$HOME/.cache/optrace-corpus}/pytorch-2.6.0"
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  echo "skipped: node and npm are needed (Debian: apt-get install nodejs npm)"
  exit 77
fi
if [[ ! -d "$tree" ]]; then
  echo "skipped: no 2.6.0 tree at $tree (scripts/corpus.sh)"
  exit 77
fi
dir="${OPTRACE_TEST_NODE_DIR:-$HOME/.cache/optrace-test-node}"
mkdir -p "$dir"
if [[ ! -f "$dir/node_modules/@modelcontextprotocol/sdk/package.json" ]] ||
   ! grep -q "\"version\": \"$sdk_version\"" "$dir/node_modules/@modelcontextprotocol/sdk/package.json"; then
  [[ -f "$dir/package.json" ]] || echo '{"private": true}' > "$dir/package.json"
  if ! npm install --prefix "$dir" --no-audit --no-fund "@modelcontextprotocol/sdk@$sdk_version" >"$dir/install.log" 2>&1; then
    echo "skipped: npm could not install @modelcontextprotocol/sdk@$sdk_version (see $dir/install.log)"
    exit 77
  fi
fi
# ES modules resolve packages next to the script: run a copy from the cache.
cp "$here/mcp_sdk_test.mjs" "$dir/mcp_sdk_test.mjs"
echo "node $(node --version), @modelcontextprotocol/sdk $sdk_version"
exec node "$dir/mcp_sdk_test.mjs" "$optrace" "$tree" "$here/data/profiles/cuda-convnet.json.gz"
