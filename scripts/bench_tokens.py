#!/usr/bin/env python3
"""Tokens per answer: what an agent reads to answer a fixed list of porting
questions, with optrace's MCP server (default detail) and with the grep
workflow the seed describes (../shared/seed/README.md: find the Python entry
and its bridge, read the native_functions.yaml entry, grep the C++/CUDA
implementations and kernels, read derivatives.yaml), in bytes of tool output
(tokens ~ bytes / 4). The grep side is a lower bound: each question gets only
the commands that hit on the first try, with the line ranges already known --
no dead ends, no second guesses.

usage: scripts/bench_tokens.py OPTRACE PYTORCH_2.6.0_CHECKOUT [--markdown]
"""
import json
import os
import subprocess
import sys

NF = "aten/src/ATen/native/native_functions.yaml"
DY = "tools/autograd/derivatives.yaml"

# (question, MCP calls, grep-workflow shell commands run in the checkout)
QUESTIONS = [
    ("Where is the CUDA kernel softmax_warp_forward defined and launched?",
     [("find", {"symbol": "softmax_warp_forward"})],
     ["grep -rn 'softmax_warp_forward' aten/src/ATen/native"]),
    ("What runs for F.softmax on CUDA, forward and backward?",
     [("trace", {"query": "F.softmax", "device": "cuda"})],
     ["grep -n 'def softmax' torch/nn/functional.py",
      "sed -n '2103,2145p' torch/nn/functional.py",
      f"grep -n -A8 -E '^- func: (softmax.int|_softmax|_softmax_backward_data)\\(' {NF}",
      "grep -n -E 'softmax_cuda_out|softmax_backward_cuda_out|host_softmax|dispatch_softmax_(forward|backward)' "
      "aten/src/ATen/native/cuda/SoftMax.cu aten/src/ATen/native/cuda/PersistentSoftmax.cuh",
      "sed -n '1085,1110p' aten/src/ATen/native/cuda/SoftMax.cu",
      f"grep -n -A4 -E 'name: _softmax\\(' {DY}"]),
    ("What kernels run for F.layer_norm forward and backward on CUDA?",
     [("trace", {"query": "F.layer_norm", "device": "cuda"})],
     ["grep -n 'def layer_norm' torch/nn/functional.py",
      "sed -n \"$(grep -n 'def layer_norm' torch/nn/functional.py | cut -d: -f1),+40p\" torch/nn/functional.py",
      f"grep -n -A10 -E '^- func: (layer_norm|native_layer_norm|native_layer_norm_backward)\\(' {NF}",
      "grep -n -E '__global__|<<<|void (layer_norm|LayerNorm)' aten/src/ATen/native/cuda/layer_norm_kernel.cu",
      "grep -rn -E 'REGISTER_DISPATCH\\((LayerNorm|layer_norm)' aten/src/ATen/native",
      f"grep -n -A6 -E 'name: native_layer_norm\\(' {DY}"]),
    ("What does nn.LSTM run on CUDA, and what is its backward?",
     [("trace", {"query": "nn.LSTM", "device": "cuda"})],
     ["grep -n -E 'class LSTM|_VF.lstm|def forward' torch/nn/modules/rnn.py",
      f"grep -n -A8 -E '^- func: (lstm.input|_cudnn_rnn|_cudnn_rnn_backward)\\(' {NF}",
      "grep -n -E 'lstm|cudnn_is_acceptable|use_cudnn|_cudnn_rnn' aten/src/ATen/native/RNN.cpp",
      "grep -n -E 'cudnnRNNForward|cudnnRNNBackward|Tensor _cudnn_rnn' aten/src/ATen/native/cudnn/RNN.cpp",
      f"grep -n -A6 -E 'name: _cudnn_rnn\\(' {DY}"]),
    ("Which tests cover nn.LSTM, and what is skipped or expected to fail?",
     [("tests", {"query": "nn.LSTM"})],
     ["grep -n 'ModuleInfo(torch.nn.LSTM' torch/testing/_internal/common_modules.py",
      "sed -n '4363,4380p' torch/testing/_internal/common_modules.py",
      "grep -n -A31 '^rnn_gru_lstm_module_info_decorators = ' torch/testing/_internal/common_modules.py",
      "grep -rlw 'nn.LSTM' test/",
      "grep -n -w 'nn.LSTM' test/test_nn.py"]),
    ("What calls the dispatch stub add_stub, and where is it registered?",
     [("find", {"symbol": "add_stub"})],
     ["grep -rn -w 'add_stub' aten/src/ATen/native"]),
]


def mcp_answers(optrace, source, calls):
    msgs = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "b", "version": "1"}}}]
    for i, (name, args) in enumerate(calls):
        msgs.append({"jsonrpc": "2.0", "id": i + 1, "method": "tools/call", "params": {"name": name, "arguments": args}})
    env = dict(os.environ, OPTRACE_NO_VERSION_CHECK="1")
    out = subprocess.run([optrace, "mcp", "--source", source, "--jobs", "1"], input="\n".join(map(json.dumps, msgs)) + "\n",
                         capture_output=True, text=True, env=env, check=True).stdout
    structured = text = 0
    for line in out.splitlines():
        answer = json.loads(line)
        if answer["id"] == 0:
            continue
        result = answer["result"]
        structured += len(json.dumps(result.get("structuredContent"), separators=(",", ":"), ensure_ascii=False).encode())
        text += len(result["content"][0]["text"].encode())
    return structured, text


def grep_bytes(source, commands):
    return sum(len(subprocess.run(c, shell=True, cwd=source, capture_output=True).stdout) for c in commands)


def main():
    optrace, source = sys.argv[1], sys.argv[2]
    rows, totals = [], [0, 0, 0]
    for question, calls, commands in QUESTIONS:
        structured, text = mcp_answers(optrace, source, calls)
        grep = grep_bytes(source, commands)
        rows.append((question, len(calls), structured, text, len(commands), grep))
        totals = [totals[0] + structured, totals[1] + text, totals[2] + grep]
    print("| question | optrace calls | structuredContent | text | grep commands | grep output | optrace / grep |")
    print("|---|---|---|---|---|---|---|")
    for q, n, s, t, g, b in rows:
        print(f"| {q} | {n} | {s:,} B (~{s // 4:,} tokens) | {t:,} B | {g} | {b:,} B (~{b // 4:,} tokens) | {100 * s / b:.0f} % |")
    s, t, b = totals
    print(f"| **all** | {len(rows)} | **{s:,} B** (~{s // 4:,} tokens) | {t:,} B | "
          f"{sum(len(c) for _, _, c in QUESTIONS)} | **{b:,} B** (~{b // 4:,} tokens) | {100 * s / b:.0f} % |")


if __name__ == "__main__":
    main()
