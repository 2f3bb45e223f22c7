#!/usr/bin/env bash
# MCP Inspector's CLI in --strict mode on `optrace mcp`, in each protocol
# revision the server speaks: 2024-11-05, 2025-03-26, 2025-06-18 and
# 2025-11-25 through the initialize handshake (the Inspector's legacy era,
# its asked revision pinned by tests/mcp_version_shim.py, which also logs
# the revision the server answered), 2026-07-28 through per-request _meta
# (the modern era), and the auto era. In each, tools/list must report 0
# errors and 0 warnings about the tool schemas, a tools/call of every tool
# must answer (verify's torch runs once per era; see torch_runs below), and
# the revision used must be the one asked for. A CTest;
# skipped (exit 77) where npm is missing, the packages cannot be installed
# (offline) or the 2.6.0 tree is absent.
#
# The Inspector needs Node >= 22.19; Debian 12 ships 18 and NodeSource's
# channel here 20, so Node 22 comes from npm's `node` package (prebuilt
# Node binaries), installed with the Inspector into a cache directory
# outside the repository, once: ${OPTRACE_TEST_NODE22_DIR:-~/.cache/optrace-node22}.
# The 54 invocations (six runs of tools/list and eight tools/call) go through
# one Node process (tests/mcp_inspector_runs.mjs), each with its own server
# as the CLI starts it: a Node start per invocation was half the test's CPU.
#   tests/mcp_inspector_test.sh OPTRACE_BINARY
set -euo pipefail
optrace="$1"
node_version=22.23.3
inspector_version=2.12.0
tree="${OPTRACE_CORPUS:-$HOME/.cache/optrace-corpus}/pytorch-2.6.0"
if ! command -v npm >/dev/null; then
  echo "skipped: npm is needed (Debian: apt-get install npm)"
  exit 77
fi
if [[ ! -d "$tree" ]]; then
  echo "skipped: no 2.6.0 tree at $tree (scripts/corpus.sh)"
  exit 77
fi
dir="${OPTRACE_TEST_NODE22_DIR:-$HOME/.cache/optrace-node22}"
mkdir -p "$dir"
installed() { grep -qs "\"version\": \"$2\"" "$dir/node_modules/$1/package.json"; }
if ! installed node "$node_version" || ! installed @modelcontextprotocol/inspector "$inspector_version"; then
  [[ -f "$dir/package.json" ]] || echo '{"private": true}' > "$dir/package.json"
  if ! npm install --prefix "$dir" --no-audit --no-fund "node@$node_version" \
       "@modelcontextprotocol/inspector@$inspector_version" >"$dir/install.log" 2>&1; then
    echo "skipped: npm could not install node@$node_version and the Inspector (see $dir/install.log)"
    exit 77
  fi
fi
export PATH="$dir/node_modules/.bin:$PATH"
echo "node $(node --version), @modelcontextprotocol/inspector $inspector_version"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
failures=0
fail() { echo "FAIL $*"; failures=$((failures + 1)); }
# The Inspector hands a stdio server only a few variables of its own
# environment: the index cache is named explicitly, so a test never touches
# the user's (scripts/test.sh sets XDG_CACHE_HOME).
cache="${XDG_CACHE_HOME:-$HOME/.cache}"
here="$(cd "$(dirname "$0")" && pwd)"
shim="$here/mcp_version_shim.py"
# verify runs the installed torch: $PYTHON, else Debian's python3-torch where it is installed;
# with none, its answer must be the one-line tool error that says so.
torch_python="${PYTHON:-}"
if [[ -z "$torch_python" ]] && /usr/bin/python3 -c 'import torch' 2>/dev/null; then torch_python=/usr/bin/python3; fi
# Torch runs (about 2.3 s of CPU each, 14 s of the test's 32) once per Inspector era: in the
# legacy era's newest revision, the modern era and the auto era. The server answers a
# tools/call without regard to the revision (only the modern era's envelope differs, and the
# seven other tools check the envelope in every revision), and the Inspector runs the same
# legacy client code whatever revision the shim pins. In the three older legacy revisions
# verify is still called, through every layer of the server, with an interpreter that does
# not exist, and must answer its one-line error naming it.
no_python=/nonexistent/python3
torch_runs() { [[ $1 != legacy || $2 == 2025-11-25 ]]; }  # ERA VERSION
profile_export="$here/data/profiles/cuda-convnet.json.gz"
# Build the index first (minutes the first time), so no call waits for it.
OPTRACE_DAEMON=0 XDG_CACHE_HOME="$cache" "$optrace" trace --json aten::abs --source "$tree" >/dev/null
runs=(legacy:2024-11-05 legacy:2025-03-26 legacy:2025-06-18 legacy:2025-11-25 modern:2026-07-28 auto:-)
calls=('trace {"query":"nn.LSTM"}' 'find {"symbol":"lstm_cudnn"}' 'op {"name":"aten::add.Tensor"}'
       'source {}' 'tests {"query":"nn.LSTM"}'
       'scan {"text":"import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return torch.relu(x)\n"}'
       "profile {\"path\":\"$profile_export\",\"top\":3}" 'verify {"query":"torch.relu","device":"cpu","samples":1}')

# Every invocation, planned first: one line of JSON each (its arguments, the
# files its output goes to), all run by one Node process (mcp_inspector_runs.mjs).
json_string() { local s="${1//\\/\\\\}"; s="${s//\"/\\\"}"; printf '"%s"' "$s"; }
plan_line() {  # OUT_STEM ARG...
  local stem="$1" line="" arg; shift
  for arg in "$@"; do line+="${line:+,}$(json_string "$arg")"; done
  printf '{"argv":[%s],"out":"%s.json","err":"%s.err"}\n' "$line" "$stem" "$stem" >>"$out/plan"
}
for run in "${runs[@]}"; do
  era="${run%%:*}" version="${run#*:}"
  python="$torch_python"
  torch_runs "$era" "$version" || python="$no_python"
  server=(-e OPTRACE_NO_VERSION_CHECK=1 -e "XDG_CACHE_HOME=$cache" ${python:+-e "PYTHON=$python"} python3 "$shim" "$([[ $era == legacy ]] && echo "$version" || echo -)"
          "$out/versions-$era-$version" "$optrace" mcp --source "$tree")
  plan_line "$out/$era-$version-list" --strict --protocol-era "$era" --connect-timeout 0 --method tools/list "${server[@]}"
  for call in "${calls[@]}"; do
    tool="${call%% *}" args="${call#* }"
    plan_line "$out/$era-$version-call-$tool" --protocol-era "$era" --connect-timeout 0 --format json --method tools/call \
      --tool-name "$tool" --tool-args-json "$args" "${server[@]}"
  done
done
node "$here/mcp_inspector_runs.mjs" "$dir/node_modules/@modelcontextprotocol/inspector/clients/cli/build/index.js" \
  "$out/plan" 2>"$out/servers.err" || { echo "FAIL the Inspector runner:"; cat "$out/servers.err"; exit 1; }
# The calls that answered structured content and no error, checked in one go.
python3 -c '
import json, sys
for path in sys.argv[1:]:
    try:
        r = json.load(open(path)); r = r.get("result", r)
        if isinstance(r.get("structuredContent"), dict) and not r.get("isError"): print(path)
    except (OSError, ValueError, AttributeError): pass
' "$out"/*-call-*.json >"$out/answered"

for run in "${runs[@]}"; do
  era="${run%%:*}" version="${run#*:}"
  label="$era $version" stem="$out/$era-$version"
  if [[ "$(cat "$stem-list.json.rc")" != 0 ]]; then
    fail "$label tools/list --strict exited $(cat "$stem-list.json.rc"):"; cat "$stem-list.err"
  else
    summary="$(grep -E '^[0-9]+ errors?, [0-9]+ warnings?' "$stem-list.err" || true)"
    if [[ -z "$summary" && -s "$stem-list.err" ]] && grep -qE '^(Warning|Error)' "$stem-list.err"; then
      fail "$label tools/list --strict:"; cat "$stem-list.err"
    elif [[ -n "$summary" && ! "$summary" =~ ^0\ errors,\ 0\ warnings ]]; then
      fail "$label tools/list --strict: $summary"; cat "$stem-list.err"
    else
      echo "ok   $label tools/list --strict: ${summary:-no portability problems}"
    fi
  fi
  for call in "${calls[@]}"; do
    tool="${call%% *}" result="$stem-call-${call%% *}.json"
    if [[ $tool == verify ]] && ! torch_runs "$era" "$version"; then
      if grep -q '"isError":true' "$result" && grep -qF "cannot run the Python interpreter $no_python" "$result"; then
        echo "ok   $label tools/call $tool: answered the missing interpreter's one-line error"
      else
        fail "$label tools/call $tool (no interpreter):"; head -c 2000 "$stem-call-$tool.err" "$result"; echo
      fi
    elif [[ "$(cat "$result.rc")" == 0 ]] && grep -qxF "$result" "$out/answered"; then
      echo "ok   $label tools/call $tool"
    elif [[ $tool == verify && -z "$torch_python" ]] && grep -q '"isError":true' "$result" &&
         grep -q 'torch is not installed' "$result"; then
      echo "ok   $label tools/call $tool: no torch here, said in one line"
    else
      fail "$label tools/call $tool:"; head -c 2000 "$stem-call-$tool.err" "$result"; echo
    fi
  done
  # The revision really used: the server's initialize answer (legacy), every request's _meta (modern).
  if [[ $version != - ]]; then
    used="$(sort -u "$out/versions-$era-$version" 2>/dev/null | tr '\n' ' ')"
    if [[ $era == legacy && "$used" != "initialize $version " ]] ||
       [[ $era == modern && "$used" != "meta $version " ]]; then
      fail "$label: the revision used was '$used'"
    else
      echo "ok   $label: every exchange in $version"
    fi
  fi
done
echo "$([[ $failures -eq 0 ]] && echo "all passed" || echo "$failures FAILED")"
exit $((failures > 0))
