#!/usr/bin/env bash
# Regenerates doc/examples/ from the tool's own output on the 2.6.0 corpus
# tree (scripts/corpus.sh provides it), so the examples the docs point at are
# never hand-edited and never stale: run it after a change to the tracer or
# the renderers and commit what changed.
#   scripts/examples.sh            uses build/optrace
#   OPTRACE=path scripts/examples.sh   another binary
set -euo pipefail
cd "$(dirname "$0")/.."
optrace="${OPTRACE:-build/optrace}"
tree="${OPTRACE_CORPUS:-$HOME/.cache/optrace-corpus}/pytorch-2.6.0"
out=doc/examples
if [[ ! -x "$optrace" ]]; then echo "examples.sh: no $optrace (scripts/build.sh optrace)" >&2; exit 3; fi
if [[ ! -f "$tree/version.txt" ]]; then echo "examples.sh: no 2.6.0 tree at $tree (scripts/corpus.sh 2.6.0)" >&2; exit 3; fi
mkdir -p "$out"
# No color, a fixed width, no daemon, no version warning: the same bytes on
# every machine with the same tree.
export NO_COLOR=1 OPTRACE_DAEMON=0 OPTRACE_NO_VERSION_CHECK=1
run() { "$optrace" "$@" --source "$tree" 2>/dev/null || [[ $? -eq 1 ]]; }
run trace nn.LSTM --width 100 >"$out/trace-nn.LSTM.txt"
run trace F.softmax --width 100 >"$out/trace-F.softmax.txt"
run trace F.softmax --detail full --width 100 >"$out/trace-F.softmax-full.txt"
run trace F.softmax --format md >"$out/trace-F.softmax.md"
run trace F.softmax --json --pretty >"$out/trace-F.softmax.json"
run trace F.softmax --format dot >"$out/trace-F.softmax.dot"
run trace aten::add.Tensor --device cuda --width 100 >"$out/trace-aten-add.Tensor-cuda.txt"
run trace softmax_warp_forward --width 100 >"$out/trace-softmax_warp_forward.txt"
run op softmax >"$out/op-softmax.txt"
run find softmax_lastdim_kernel >"$out/find-softmax_lastdim_kernel.txt"
run py torch.nn.LSTM.forward >"$out/py-torch.nn.LSTM.forward.txt"
run scan tests/data/scan/transformer.py >"$out/scan-transformer.txt"
run profile tests/data/profiles/cuda-transformer.json.gz --top 8 >"$out/profile-cuda-transformer.txt"
# A kernel name exactly as torch.profiler printed it on an H200 (issue 26).
run trace 'void at::native::vectorized_elementwise_kernel<4, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::sigmoid_kernel_cuda(at::TensorIteratorBase&)::{lambda()#2}::operator()() const::{lambda()#2}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul>)' \
  --width 100 >"$out/trace-kernel-name-sigmoid.txt"
wc -l "$out"/* | sed 's/^/examples.sh: /' >&2
