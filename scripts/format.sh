#!/usr/bin/env bash
# Applies .clang-format to every C++ file under src/ (in place).
#   scripts/format.sh           reformat
#   scripts/format.sh --check   list the files that are not formatted; exit 1 if any
set -euo pipefail
cd "$(dirname "$0")/.."
cf=$(command -v clang-format || command -v clang-format-14 || true)
if [[ -z "$cf" ]]; then
  echo "format.sh: clang-format not found (apt-get install clang-format)" >&2
  exit 3
fi
mapfile -t files < <(find src -name '*.cc' -o -name '*.h' | sort)
if [[ "${1:-}" == "--check" ]]; then
  bad=0
  for f in "${files[@]}"; do
    if ! "$cf" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then echo "$f"; bad=1; fi
  done
  exit $bad
fi
"$cf" --style=file -i "${files[@]}"
