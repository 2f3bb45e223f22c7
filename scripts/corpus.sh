#!/usr/bin/env bash
# Provides real PyTorch source trees from Debian's source packages, idempotently, at
#   ${OPTRACE_CORPUS:-$HOME/.cache/optrace-corpus}/pytorch-<version>
# The deb-src entry is derived from the machine's own apt source file, so no
# archive host name is written here. Usage: scripts/corpus.sh [VERSION ...]
# (default: 2.6.0 1.13.1). Needs root for apt-get update when a suite is missing.
set -euo pipefail

corpus="${OPTRACE_CORPUS:-$HOME/.cache/optrace-corpus}"
sources=/etc/apt/sources.list.d/debian.sources

# version -> "debian-version suite"
package_for() {
  case "$1" in
    2.6.0) echo "2.6.0+dfsg-7 trixie" ;;
    1.13.1) echo "1.13.1+dfsg-4 bookworm" ;;
    *) echo "corpus.sh: no Debian source package known for PyTorch $1" >&2; return 1 ;;
  esac
}

# Writes /etc/apt/sources.list.d/optrace-src-<suite>.sources from the first
# stanza of the machine's debian.sources, with Types: deb-src and our suite.
ensure_deb_src() {
  local suite=$1 out="/etc/apt/sources.list.d/optrace-src-$1.sources"
  [ -f "$out" ] && return 1   # already there: nothing new
  [ -r "$sources" ] || { echo "corpus.sh: $sources not found; cannot derive a deb-src entry" >&2; exit 4; }
  awk -v suite="$suite" '
    /^[[:space:]]*$/ { if (seen) exit; next }
    { seen = 1 }
    /^Types:/  { print "Types: deb-src"; next }
    /^Suites:/ { print "Suites: " suite; next }
    /^#/       { next }
    { print }' "$sources" > "$out.tmp"
  mv "$out.tmp" "$out"
  return 0
}

fetch_one() {
  local version=$1 dest="$corpus/pytorch-$1"
  if [ -f "$dest/aten/src/ATen/native/native_functions.yaml" ]; then
    echo "corpus: pytorch-$version ready at $dest"
    return 0
  fi
  local spec debver suite
  spec=$(package_for "$version") || return 1
  read -r debver suite <<<"$spec"
  # apt-get update when the entry is new or apt does not know the version yet.
  if ensure_deb_src "$suite" || ! apt-cache showsrc "pytorch=$debver" 2>/dev/null | grep -q "^Version: $debver\$"; then
    apt-get update -qq
  fi
  local work="$corpus/.download-$version"
  mkdir -p "$work"
  ( cd "$work" && { ls pytorch_*.orig.tar.* >/dev/null 2>&1 ||
      apt-get source --download-only "pytorch=$debver" || true; } )
  local orig
  orig=$(ls "$work"/pytorch_*.orig.tar.* 2>/dev/null | head -n1 || true)
  [ -n "$orig" ] || { echo "corpus.sh: could not download pytorch=$debver" >&2; return 1; }
  local tmp="$corpus/.unpack-$version.$$"
  rm -rf "$tmp"; mkdir -p "$tmp"
  tar -xf "$orig" -C "$tmp"
  local top
  top=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | head -n1)
  [ -f "$top/aten/src/ATen/native/native_functions.yaml" ] || {
    echo "corpus.sh: $orig does not hold a PyTorch tree" >&2; rm -rf "$tmp"; return 1; }
  rm -rf "$dest"
  mv "$top" "$dest"          # atomic on one file system: never a half tree at $dest
  rm -rf "$tmp" "$work"
  echo "corpus: pytorch-$version ready at $dest"
}

mkdir -p "$corpus"
[ $# -gt 0 ] || set -- 2.6.0 1.13.1
for v in "$@"; do fetch_one "$v"; done
