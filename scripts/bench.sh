#!/usr/bin/env bash
# Measures optrace's index store and traces on this machine and writes
# doc/benchmarks.md: first the speed goals (issue 28), each with its target
# and the command it times -- warm whole-process `optrace trace --json QUERY`
# answered by the daemon for the 42 public queries (median, p95), cold index
# build + first trace in one process with an empty cache (wall, peak RSS),
# `optrace trace --all --json` (wall, bytes), the first MCP answer with an
# empty cache, and the test suite on 2 cores (with CTEST_DIR); then the cold
# full index, re-indexing after an edit to one .cu file (on a copy of the
# tree), and -- in the same run -- the seed's grep workflow for the same
# queries (time and lines an agent must read). Whole processes, medians over
# runs: a busy machine's numbers are indicative only.
#
# Usage: scripts/bench.sh [TREE]   (default ~/.cache/optrace-corpus/pytorch-2.6.0)
# Env:   REPEAT (runs per warm query, default 5), BUILD_DIR (default build-bench),
#        OPTRACE_BIN (a prebuilt binary: no build; e.g. the static build/optrace
#        copied to a quiet machine), ORACLE (the cases file naming the queries),
#        OUT (where the report goes, default doc/benchmarks.md), CTEST_DIR (a
#        build folder with the tests built: `ctest -j2` there is timed too;
#        about 4 minutes).
# For the "2 cores" targets on a bigger machine: taskset -c 0,1 scripts/bench.sh
set -euo pipefail
cd "$(dirname "$0")/.."
TREE=$(realpath "${1:-$HOME/.cache/optrace-corpus/pytorch-2.6.0}")
BUILD_DIR=${BUILD_DIR:-build-bench}
REPEAT=${REPEAT:-5}
ORACLE=${ORACLE:-/work/shared/bench/oracle-2.6.0-public.json}
OUT=${OUT:-doc/benchmarks.md}
BIN=${OPTRACE_BIN:-}
if [ -z "$BIN" ]; then
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  ninja -C "$BUILD_DIR" -j"$(nproc)" optrace >/dev/null
  BIN=$BUILD_DIR/optrace
fi

WORK=$(mktemp -d /tmp/optrace-bench.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

python3 - "$BIN" "$TREE" "$ORACLE" "$WORK" "$REPEAT" "$OUT" "${CTEST_DIR:-}" <<'PY'
import datetime, json, os, re, shutil, statistics, subprocess, sys, tempfile, time

binary, tree, oracle, work, repeat = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5])
report, ctest_dir = sys.argv[6], sys.argv[7]
env = dict(os.environ, XDG_CACHE_HOME=work + "/cache", OPTRACE_NO_VERSION_CHECK="1")
queries = list(dict.fromkeys(c["query"] for c in json.load(open(oracle))["cases"].values()))

def run(args, cwd=None, stdout=subprocess.DEVNULL, check=True):
    t = time.perf_counter()
    p = subprocess.run(args, env=env, cwd=cwd, stdout=stdout, stderr=subprocess.PIPE, text=True)
    ms = (time.perf_counter() - t) * 1000
    if check and p.returncode not in (0, 1):
        sys.exit(f"bench.sh: {' '.join(args)} failed ({p.returncode}): {p.stderr}")
    return ms, p

def timev(args, cwd=None, run_env=None, stdout=subprocess.DEVNULL):
    """wall ms, cpu ms, peak RSS MiB of one child (its own rusage, from wait4)"""
    t = time.perf_counter()
    p = subprocess.Popen(args, env=run_env or env, cwd=cwd, stdout=stdout, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    p.returncode = 0
    wall = (time.perf_counter() - t) * 1000
    return wall, (ru.ru_utime + ru.ru_stime) * 1000, ru.ru_maxrss / 1024

def percentile(ms, q):
    ms = sorted(ms)
    return ms[min(len(ms) - 1, int(round(q * (len(ms) - 1))))]

def stats(ms):
    return statistics.median(ms), percentile(ms, 0.9), max(ms)

def fresh_cache_env(ask_torch=False, **extra):
    """the environment of a run with an empty cache folder of its own; with
    ask_torch, the installed torch is asked as a user's first run asks it
    (the goals' command lines: no OPTRACE_NO_VERSION_CHECK)"""
    fresh = dict(env, XDG_CACHE_HOME=tempfile.mkdtemp(dir=work, prefix="cache-"), **extra)
    if ask_torch:
        fresh.pop("OPTRACE_NO_VERSION_CHECK", None)
    return fresh

# Cold: the index built and the first trace made in one process, from an
# empty cache (OPTRACE_DAEMON=0: the process's own work, no daemon started).
# The installed torch is asked too, as by a user's first run: a Python
# behind a pyenv shim takes 0.3 s or more to answer.
cold_first = [timev([binary, "trace", "--json", "--source", tree, "nn.LSTM"],
                    run_env=fresh_cache_env(ask_torch=True, OPTRACE_DAEMON="0")) for _ in range(3)]

# The first answer of `optrace mcp` from an empty cache: start, initialize,
# one tools/call trace, timed to the answer's line.
def mcp_first_answer(query="nn.LSTM"):
    lines = [{"jsonrpc": "2.0", "id": 1, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}}},
             {"jsonrpc": "2.0", "method": "notifications/initialized"},
             {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "trace", "arguments": {"query": query}}}]
    t = time.perf_counter()
    p = subprocess.Popen([binary, "mcp", "--source", tree], env=fresh_cache_env(ask_torch=True), stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    p.stdin.write("".join(json.dumps(m) + "\n" for m in lines))
    p.stdin.flush()
    answered = False
    for line in p.stdout:
        if json.loads(line).get("id") == 2:
            answered = True
            break
    ms = (time.perf_counter() - t) * 1000
    p.stdin.close()
    p.wait()
    if not answered:
        sys.exit("bench.sh: optrace mcp gave no answer to its first tools/call")
    return ms
mcp_first = [mcp_first_answer() for _ in range(3)]

src = ["--source", tree]
# Cold full index.
cold = [timev([binary, "index", "--rebuild"] + src) for _ in range(2)]
_, p = run([binary, "index"] + src, stdout=subprocess.PIPE)
index_report = p.stdout.strip()

# Warm whole-process traces in process (OPTRACE_DAEMON=0: map the image,
# check it against the tree, trace), one untimed warm-up run first.
inproc_env = dict(env, OPTRACE_DAEMON="0")
def run_inproc(args):
    t = time.perf_counter()
    subprocess.run(args, env=inproc_env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000
for q in queries:
    run_inproc([binary, "trace", "--json"] + src + [q])
inproc, inproc_per_query = [], {}
for q in queries:
    inproc_per_query[q] = [run_inproc([binary, "trace", "--json"] + src + [q]) for _ in range(repeat)]
    inproc += inproc_per_query[q]

# Warm whole-process traces as users run them: the first trace starts the
# resident daemon (cmd_daemon.h); wait until it answers, then measure.
run([binary, "trace", "--json"] + src + [queries[0]])
for _ in range(300):
    if run([binary, "daemon", "--status"] + src, check=False)[1].returncode == 0:
        break
    time.sleep(0.1)
else:
    sys.exit("bench.sh: the daemon did not start")
for q in queries:
    run([binary, "trace", "--json"] + src + [q])
warm, per_query = [], {}
for q in queries:
    per_query[q] = [run([binary, "trace", "--json"] + src + [q])[0] for _ in range(repeat)]
    warm += per_query[q]
warm_cpu = [timev([binary, "trace", "--json"] + src + [q])[1] for q in queries[:10]]

# Every op (the JSON written to a file, to count its bytes).
all_runs, all_bytes = [], 0
for _ in range(3):
    with open(work + "/all.json", "w") as f:
        all_runs.append(run([binary, "trace", "--all", "--json"] + src, stdout=f)[0])
    all_bytes = os.path.getsize(work + "/all.json")
    with open(work + "/all.json", "rb") as f:
        all_ops = sum(chunk.count(b"\n") for chunk in iter(lambda: f.read(1 << 24), b""))
    os.remove(work + "/all.json")

# Re-index after an edit to one .cu, on a copy of the tree.
copy = work + "/tree"
os.makedirs(copy + "/tools")
for part in ["aten", "torch", "version.txt"]:
    (shutil.copytree if os.path.isdir(f"{tree}/{part}") else shutil.copy2)(f"{tree}/{part}", f"{copy}/{part}")
shutil.copytree(f"{tree}/tools/autograd", f"{copy}/tools/autograd")
csrc = ["--source", copy]
run([binary, "index"] + csrc)
env["OPTRACE_DAEMON"] = "0"  # the edits below measure the store's update path
cu = copy + "/aten/src/ATen/native/cuda/SoftMax.cu"
def reindex_after(edit, times=5):
    """`optrace index` after each of `times` edits: wall ms, and the report's last line"""
    ms_all, lines = [], []
    for i in range(times):
        edit(i)
        ms, p = run([binary, "index"] + csrc, stdout=subprocess.PIPE)
        ms_all.append(ms)
        lines.append(p.stdout.strip().splitlines()[-1].strip())
    return ms_all, lines
def append_line(i):  # an edit in place (>>)
    with open(cu, "a") as f:
        f.write(f"// bench edit {i}\n")
def editor_save(i):  # as editors save: a new file renamed over the old one (the directory changes too)
    text = open(cu).read()
    with open(cu + ".swp", "w") as f:
        f.write(f"// bench save {i}\n" + text)
    os.replace(cu + ".swp", cu)
def touch(i):  # the same bytes, a new mtime
    os.utime(cu, ns=(time.time_ns(), time.time_ns() + i))
reindex, reindex_reports = reindex_after(append_line)
saved, saved_reports = reindex_after(editor_save, 3)
touched, touched_reports = reindex_after(touch, 3)
layer_report = run([binary, "index"] + csrc, stdout=subprocess.PIPE)[1].stdout.strip()
touched_trace = []
for i in range(3):
    append_line(100 + i)
    touched_trace.append(run([binary, "trace", "--json"] + csrc + ["aten::_softmax"])[0])
# A Python edit joins the layer; a new file is a change a layer cannot carry (a new image).
py = copy + "/torch/nn/functional.py"
def py_edit(i):
    with open(py, "a") as f:
        f.write(f"# bench edit {i}\n")
py_reindex, py_reports = reindex_after(py_edit, 2)
def add_file(i):
    with open(f"{copy}/aten/src/ATen/native/cuda/BenchNew{i}.cu", "w") as f:
        f.write(f"void bench_new_{i}() {{}}\n")
added, added_reports = reindex_after(add_file, 2)

# The seed's grep workflow (3_tracing_strategies.txt) for the same queries.
def snake(name):
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()

def grep_commands(q):
    kind, _, name = q.partition(".")
    leaf = name.split(".")[-1]
    cmds = []
    if kind == "nn":
        cmds.append(["grep", "-rn", f"class {name}\\b", "torch/nn/modules/"])
        op = snake(name)
    elif kind == "F":
        cmds.append(["grep", "-n", f"def {leaf}\\b", "torch/nn/functional.py"])
        op = leaf
    elif kind == "torch":
        cmds.append(["grep", "-n", f"def {leaf}\\b", "torch/functional.py", "torch/__init__.py"])
        op = leaf
    else:  # Tensor.x
        cmds.append(["grep", "-n", f"def {leaf}\\b", "torch/_tensor.py"])
        op = leaf
    cmds += [
        ["grep", "-n", f"func: {op}[.(]", "aten/src/ATen/native/native_functions.yaml"],
        ["grep", "-rn", op, "aten/src/ATen/native/", "--include=*.cpp"],
        ["grep", "-rn", op, "aten/src/ATen/native/cuda/", "--include=*.cu"],
        ["grep", "-n", "-e", f"- name: {op}[.(]", "tools/autograd/derivatives.yaml"],
    ]
    return cmds

grep_ms, grep_lines, grep_cmds_total, trace_lines = [], [], 0, []
for q in queries:
    total, lines = 0.0, 0
    for c in grep_commands(q):
        ms, p = run(c, cwd=tree, stdout=subprocess.PIPE, check=False)
        total += ms
        lines += p.stdout.count("\n")
        grep_cmds_total += 1
    grep_ms.append(total)
    grep_lines.append(lines)
    _, p = run([binary, "trace"] + src + [q], stdout=subprocess.PIPE)
    trace_lines.append(p.stdout.count("\n"))

# The test suite on 2 cores, when a build folder with its tests is named;
# the slowest tests from CTest's own timings.
ctest_row = "not run here (give `CTEST_DIR=build`)"
if ctest_dir:
    t = time.perf_counter()
    # The suite's own environment: its version-check tests need the check on.
    p = subprocess.run(["ctest", "--test-dir", ctest_dir, "-j2"], env=fresh_cache_env(ask_torch=True), stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
    seconds = time.perf_counter() - t
    timed = sorted(((float(m.group(2)), m.group(1)) for m in re.finditer(r"Test +#\d+: (\S+) \.+.*? +([\d.]+) sec", p.stdout)),
                   reverse=True)
    slowest = ", ".join(f"{name} {sec:.0f} s" for sec, name in timed[:4])
    summary = next((l for l in p.stdout.splitlines() if "tests passed" in l), "?")
    ctest_row = f"{seconds:.0f} s ({summary.strip()}); slowest: {slowest}"

cpu_model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
version = open(tree + "/version.txt").read().strip()
load = open("/proc/loadavg").read().split()[:3]
wm, wp90, wmax = stats(warm)
wp95 = percentile(warm, 0.95)
im, ip90, imax = stats(inproc)
gm, gp90, gmax = stats(grep_ms)
out = f"""# Benchmarks

Generated by `scripts/bench.sh` down to the marker below -- do not edit that part by hand.

- Date: {datetime.datetime.now().strftime('%Y-%m-%d %H:%M')}
- Machine: {len(os.sched_getaffinity(0))} cores ({cpu_model}), load average at the end {' '.join(load)}
- Tree: `{tree}` (version.txt {version})
- Binary: `{binary}` (Release); caches in a temporary `XDG_CACHE_HOME`; `OPTRACE_NO_VERSION_CHECK=1` except in the cold and first-MCP-answer goals (a first run asks the installed torch, as their command lines do)

## Speed goals (issue 28)

Each a whole process (or the suite), timed from outside; medians over the runs named.

| goal | command timed | result | target |
|---|---|---|---|
| warm trace, daemon answering | `optrace trace --json --source TREE QUERY` for the {len(queries)} public module/functional queries x {repeat}, after one untimed run each | median {wm:.1f} ms, p95 {wp95:.1f} ms, max {wmax:.1f} ms | median <= 10 ms, p95 <= 30 ms |
| cold: index build + first trace | `OPTRACE_DAEMON=0 XDG_CACHE_HOME=$(mktemp -d) /usr/bin/time -v optrace trace --json --source TREE nn.LSTM`, 3 runs | wall median {statistics.median(c[0] for c in cold_first):.0f} ms, peak RSS median {statistics.median(c[2] for c in cold_first):.0f} MiB (CPU {statistics.median(c[1] for c in cold_first):.0f} ms) | <= 1.0 s, <= 250 MB |
| every op | `optrace trace --all --json --source TREE > FILE`, 3 runs | median {statistics.median(all_runs)/1000:.2f} s; {all_ops} ops, {all_bytes / 1e6:.0f} MB of JSON ({all_bytes / max(1, all_ops) / 1e3:.0f} KB per op) | <= 3 s |
| first MCP answer, empty cache | `XDG_CACHE_HOME=$(mktemp -d) optrace mcp --source TREE`: initialize, then one `tools/call` trace of nn.LSTM, to its answer; 3 runs | median {statistics.median(mcp_first):.0f} ms (runs: {', '.join(f'{x:.0f}' for x in mcp_first)}) | <= 1.5 s |
| test suite | `ctest --test-dir BUILD -j2` | {ctest_row} | <= 4 min on 2 cores |

## Store, in-process traces and the grep workflow

| what | result | target |
|---|---|---|
| cold full index (`optrace index --rebuild`) | wall {cold[-1][0]:.0f} ms, CPU {cold[-1][1]:.0f} ms, peak RSS {cold[-1][2]:.0f} MiB (first run: wall {cold[0][0]:.0f} ms) | |
| warm `optrace trace --json QUERY`, {len(queries)} queries x {repeat} (answered by the daemon) | median {wm:.1f} ms, p90 {wp90:.1f} ms, max {wmax:.1f} ms (client CPU median {statistics.median(warm_cpu):.0f} ms over 10 queries) | (above) |
| the same, in process (`OPTRACE_DAEMON=0`: map, check ~4000 files, trace) | median {im:.1f} ms, p90 {ip90:.1f} ms, max {imax:.1f} ms | |
| `optrace index` after editing one .cu in place (tree copy; a layer over the image) | {', '.join(f'{x:.0f}' for x in reindex)} ms | <= 100 ms |
| the same, saved as editors do (new file renamed over it) | {', '.join(f'{x:.0f}' for x in saved)} ms | <= 100 ms |
| the same, `touch` (same bytes, new mtime) | {', '.join(f'{x:.0f}' for x in touched)} ms | <= 100 ms |
| `optrace trace --json aten::_softmax` after editing that .cu (in process: update the layer, trace) | {', '.join(f'{x:.0f}' for x in touched_trace)} ms | |
| `optrace index` after editing one .py (joins the layer) | {', '.join(f'{x:.0f}' for x in py_reindex)} ms | |
| `optrace index` after adding a .cu file (a new image: no layer) | {', '.join(f'{x:.0f}' for x in added)} ms | |
| seed grep workflow, same {len(queries)} queries ({grep_cmds_total} greps) | per query median {gm:.0f} ms, p90 {gp90:.0f} ms, max {gmax:.0f} ms; {sum(grep_lines)} lines to read (median {statistics.median(grep_lines):.0f}/query) | |
| optrace text trace, same queries | {sum(trace_lines)} lines (median {statistics.median(trace_lines):.0f}/query) | |

Ratio (grep workflow time / warm optrace time, medians): {gm / wm:.1f}x; lines to read: {sum(grep_lines) / max(1, sum(trace_lines)):.1f}x.

`optrace index` after the build:

```
{index_report}
```

Re-index reports (last line): in place {'; '.join(reindex_reports)}; saved {'; '.join(saved_reports)};
touched {'; '.join(touched_reports)}; .py {'; '.join(py_reports)}; added {'; '.join(added_reports)}

`optrace index` after the edits to SoftMax.cu:

```
{layer_report}
```

## Per query (warm optrace ms over {repeat} runs; grep ms and lines)

| query | optrace median | optrace max | in process median | grep ms | grep lines | trace lines |
|---|---|---|---|---|---|---|
""" + "\n".join(f"| `{q}` | {statistics.median(per_query[q]):.1f} | {max(per_query[q]):.1f} | {statistics.median(inproc_per_query[q]):.1f} | {grep_ms[i]:.0f} | {grep_lines[i]} | {trace_lines[i]} |"
                for i, q in enumerate(queries)) + """

## The grep workflow, exactly

From the tree root, per query (op = the query's last name; nn.X: X in snake_case):
`grep -rn "class X\\b" torch/nn/modules/` (nn.X) or `grep -n "def x\\b" torch/nn/functional.py` (F.x) or
`grep -n "def x\\b" torch/functional.py torch/__init__.py` (torch.x) or `grep -n "def x\\b" torch/_tensor.py` (Tensor.x);
then `grep -n "func: op[.(]" aten/src/ATen/native/native_functions.yaml`,
`grep -rn op aten/src/ATen/native/ --include=*.cpp`, `grep -rn op aten/src/ATen/native/cuda/ --include=*.cu`,
`grep -n -e "- name: op[.(]" tools/autograd/derivatives.yaml`. Each grep is its own process, as an agent runs them.
"""
subprocess.run([binary, "daemon", "--stop"] + src, env=env, stdout=subprocess.DEVNULL)
# Sections written by hand (paired comparisons, verify reports) follow the
# marker in the report; they are kept.
MARKER = "<!-- hand-written sections below: bench.sh keeps them -->"
kept = ""
if os.path.exists(report):
    old = open(report).read()
    if MARKER in old:
        kept = "\n" + old[old.index(MARKER):]
open(report, "w").write(out + kept)
print(out)
PY
