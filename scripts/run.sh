#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build, obtain the
# default PyTorch checkout if there is none, and trace nn.LSTM.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
scripts/build.sh optrace
if [ -z "${PYTORCH_SOURCE:-}" ] && [ ! -f "${TILEGYM_SKILL_CACHE_DIR:-$HOME/.cache/tilegym}/pytorch-source/aten/src/ATen/native/native_functions.yaml" ]; then
  build/optrace fetch
fi
build/optrace trace "${@:-nn.LSTM}"
