#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build and install
# optrace on PATH (scripts/install.sh: /usr/local/bin), obtain the default
# PyTorch checkout if there is none, and trace nn.LSTM (or "$@").
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/install.sh
default="${TILEGYM_SKILL_CACHE_DIR:-$HOME/.cache/tilegym}/pytorch-source"
if [ -z "${PYTORCH_SOURCE:-}" ] && [ ! -f "$default/aten/src/ATen/native/native_functions.yaml" ]; then
  # optrace fetch clones the release of the installed torch (else 2.6.0).
  # Where GitHub is out of reach and apt has no deb-src entry yet, provide
  # Debian's 2.6.0 source tree the way the test corpus does, and point the
  # default location at it.
  if ! build/optrace fetch; then
    scripts/corpus.sh 2.6.0
    mkdir -p "$(dirname "$default")"
    ln -sfn "${OPTRACE_CORPUS:-$HOME/.cache/optrace-corpus}/pytorch-2.6.0" "$default"
  fi
fi
if [ $# -eq 0 ]; then set -- nn.LSTM; fi
build/optrace trace "$@"
