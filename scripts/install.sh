#!/usr/bin/env bash
# Puts `optrace` on PATH: builds it (Release) and runs `cmake --install` into
# $PREFIX (default /usr/local, so /usr/local/bin/optrace; where that is not
# writable, ~/.local). A new shell, `claude mcp add ... -- optrace mcp` and a
# project's .mcp.json then find it.
#
#   scripts/install.sh                   the binary
#   scripts/install.sh --skill [DIR]     also SKILL.md into DIR/.claude/skills/optrace/ (DIR: the current directory)
#   scripts/install.sh --user-skill      also SKILL.md into ~/.claude/skills/optrace/ (every project)
set -euo pipefail
here="$PWD"
cd "$(dirname "$0")/.."
skill_dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --skill) if [ $# -gt 1 ] && [ "${2#-}" = "$2" ]; then skill_dir="$2"; shift; else skill_dir="$here"; fi
             skill_dir="$(cd "$skill_dir" && pwd)/.claude/skills/optrace" ;;
    --user-skill) skill_dir="$HOME/.claude/skills/optrace" ;;
    *) echo "install.sh: unknown argument $1 (see the header of scripts/install.sh)" >&2; exit 2 ;;
  esac
  shift
done
scripts/build.sh optrace
prefix="${PREFIX:-/usr/local}"
if ! { mkdir -p "$prefix/bin" 2>/dev/null && [ -w "$prefix/bin" ]; }; then
  prefix="$HOME/.local"
fi
cmake --install build --prefix "$prefix" >/dev/null
echo "installed $prefix/bin/optrace"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "note: $prefix/bin is not on PATH; add it (export PATH=\"$prefix/bin:\$PATH\" in your shell's rc file)" ;;
esac
if [ -n "$skill_dir" ]; then
  mkdir -p "$skill_dir"
  cp skills/optrace/SKILL.md "$skill_dir/SKILL.md"
  echo "installed the skill into $skill_dir/SKILL.md"
fi
