# optrace verify's Python driver: runs the installed torch and reports which
# aten ops (and CUDA kernels) really ran, as one JSON object on stdout
# (optrace.observed/1, doc/verify-schema.md). optrace embeds this file at
# build time and runs it as `python -I -c DRIVER` with the config JSON on
# stdin: isolated (no user site, no PYTHON* variables, no script directory on
# sys.path), never through a shell. stdout belongs to the driver's answer:
# the descriptor is kept aside first and fd 1 pointed at stderr, so whatever
# the user's code (or a C++ extension) prints cannot corrupt it. All joining with the static trace happens in C++; this
# script only observes, so its output can be produced on one machine (one
# with a GPU) and joined on another (`optrace verify --observed FILE`).
#
# Each input is run once to warm up (lazy initialisation, autotuning,
# cuBLAS handles), then forward and backward are run under the profiler
# (separately, so every event has a phase; the profiler's tree gives the
# aten call nesting and the CUDA kernels each op launched), then once more
# under a TorchDispatchMode, which names the overload of every op that
# reaches the dispatcher below autograd.
#
# Exit codes (the C++ side turns them into messages): 0 ok, 10 torch
# missing, 11 device unavailable, 12 the user's code raised, 13 no OpInfo /
# ModuleInfo for the query, 14 bad configuration.
import json
import os
import sys
import time
import traceback

RESULT = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)


def fail(code, message, **extra):
    out = {"schema": "optrace.observed/1"}
    out.update(extra)
    out["error"] = {"code": code, "message": message}
    RESULT.write(json.dumps(out) + "\n")
    RESULT.flush()
    sys.exit(code)


def stub_test_only_modules():
    # torch.testing._internal imports expecttest (a test-only dependency that
    # distributions may not ship); op_db never uses it, so a stand-in does.
    try:
        import expecttest  # noqa: F401
    except ImportError:
        import types
        import unittest
        stub = types.ModuleType("expecttest")
        stub.TestCase = unittest.TestCase
        stub.ACCEPT = False
        sys.modules["expecttest"] = stub


def walk_tensors(value, found):
    import torch
    if isinstance(value, torch.Tensor):
        found.append(value)
    elif isinstance(value, (list, tuple)):
        for v in value:
            walk_tensors(v, found)
    elif isinstance(value, dict):
        for v in value.values():
            walk_tensors(v, found)
    return found


def differentiable(outputs):
    return [t for t in walk_tensors(outputs, [])
            if t.requires_grad and t.grad_fn is not None and (t.is_floating_point() or t.is_complex())]


def backward_of(outputs):
    """A function running only the backward pass: the gradients fed in are made
    here, outside whatever is profiled."""
    import torch
    roots = differentiable(outputs)
    leaves = leaves_of(roots)
    if not roots or not leaves:
        return None
    grads = [torch.ones_like(r) for r in roots]

    def run():
        torch.autograd.grad(roots, leaves, grad_outputs=grads, allow_unused=True, retain_graph=True)
    return run


def leaves_of(roots):
    # Node wrappers are made on access and freed after; `kept` holds them so
    # that an id in `seen` is never reused by another node.
    seen, kept, leaves, stack = set(), [], [], [r.grad_fn for r in roots]
    while stack:
        fn = stack.pop()
        if fn is None or id(fn) in seen:
            continue
        seen.add(id(fn))
        kept.append(fn)
        if hasattr(fn, "variable"):
            leaves.append(fn.variable)
        stack.extend(f for f, _ in fn.next_functions)
    return leaves


class Recorder:
    """Collects aten events of one phase from the profiler's tree."""

    def __init__(self, device):
        self.device = device
        self.ops = {}

    def add_events(self, events, phase, exact=None):
        nodes = self.node_spans(events)
        exact = exact or {}
        for e in events:
            name = e.name
            if not name.startswith("aten::"):
                continue
            stack, node = exact[e.id] if e.id in exact else self.aten_ancestors(e)
            if node is None:
                node = self.enclosing_node(e, nodes)
            key = (name, tuple(stack), phase)
            rec = self.ops.setdefault(key, {"name": name[6:], "stack": stack, "phase": phase,
                                            "autograd_node": node, "count": 0, "kernels": {}})
            rec["count"] += 1
            for k in getattr(e, "kernels", []) or []:
                rec["kernels"][k.name] = rec["kernels"].get(k.name, 0) + 1

    @staticmethod
    def node_spans(events):
        """The autograd nodes' events (e.g. "ToCopyBackward0") by thread, with
        their time spans."""
        spans = {}
        for e in events:
            if not e.name.startswith("autograd::") and "Backward" in e.name and e.time_range is not None:
                spans.setdefault(e.thread, []).append((e.time_range.start, e.time_range.end, e.name))
        return spans

    @staticmethod
    def enclosing_node(e, spans):
        """The autograd node whose span holds e's, or one of the ops e calls,
        on its thread, ends included: the profiler's own parent links now and
        then miss an op whose span starts or ends on its node's microsecond
        (ToCopyBackward0's aten::to, while the aten::_to_copy it calls fits)."""
        if not spans.get(e.thread):  # a forward phase, or a thread that ran no node
            return None
        pending = [e]
        while pending:
            event = pending.pop(0)
            if event.time_range is not None:
                inner = None
                for start, end, name in spans.get(event.thread, []):
                    if start <= event.time_range.start and event.time_range.end <= end and (inner is None or start >= inner[0]):
                        inner = (start, name)
                if inner:
                    return inner[1]
            pending.extend(getattr(event, "cpu_children", None) or [])
        return None

    @staticmethod
    def exact_ancestors(profiler):
        """{correlation id: (aten ops enclosing it, outermost first; its autograd
        node)} from the profiler's own event tree, built from nanosecond
        times. The FunctionEvents' cpu_parent links come of microsecond times
        truncated twice (start and duration), so a child that starts in its
        parent's last microsecond loses its parent: torch 1.13's aten::dot
        left aten::matmul in about one profile of seven. {} where the
        profiler has no such tree."""
        tree = getattr(getattr(profiler, "kineto_results", None), "experimental_event_tree", None)
        if tree is None:
            return {}
        out = {}
        pending = [(root, [], None) for root in tree()]
        while pending:
            event, stack, node = pending.pop()
            name = event.name
            if name.startswith("aten::"):
                out[event.correlation_id] = (stack, node)
                stack = stack + [name[6:]]
            elif node is None and not name.startswith("autograd::") and "Backward" in name:
                node = name
            pending.extend((child, stack, node) for child in event.children)
        return out

    @staticmethod
    def aten_ancestors(e):
        """The aten ops enclosing e, outermost first, and the autograd node
        (e.g. "SoftmaxBackward0") it ran in."""
        stack, node, p = [], None, e.cpu_parent
        while p is not None:
            if p.name.startswith("aten::"):
                stack.append(p.name[6:])
            elif node is None and not p.name.startswith("autograd::") and "Backward" in p.name:
                node = p.name
            p = p.cpu_parent
        return stack[::-1], node

    def result(self):
        out = []
        for rec in self.ops.values():
            rec = dict(rec)
            rec["kernels"] = [{"name": n, "count": c} for n, c in sorted(rec["kernels"].items())]
            out.append(rec)
        return out


def profiled(fn, recorder, phase):
    import torch
    from torch.profiler import profile, ProfilerActivity
    activities = [ProfilerActivity.CPU]
    if recorder.device == "cuda":
        activities.append(ProfilerActivity.CUDA)
    with profile(activities=activities) as prof:
        result = fn()
        if recorder.device == "cuda":
            torch.cuda.synchronize()
    recorder.add_events(prof.events(), phase, Recorder.exact_ancestors(prof.profiler))
    return result


def dispatched_overloads(forward):
    """aten overloads seen below autograd: {"_softmax": ["default"]}."""
    try:
        from torch.utils._python_dispatch import TorchDispatchMode
    except ImportError:
        return {}
    seen = {}

    class Mode(TorchDispatchMode):
        def __torch_dispatch__(self, func, types, args=(), kwargs=None):
            text = str(func)  # "aten._softmax.default"
            if text.startswith("aten."):
                base, _, overload = text[5:].rpartition(".")
                seen.setdefault(base, set()).add(overload)
            return func(*args, **(kwargs or {}))

    with Mode():
        outputs = forward()
        back = backward_of(outputs)
        if back:
            back()
    return {k: sorted(v) for k, v in seen.items()}


def observe(label, query, forward, device, setup_in_run=False):
    """Runs forward (+ backward) warm, then profiled, then under dispatch mode."""
    import torch
    run = {"label": label, "query": query, "setup_in_run": setup_in_run, "error": None}
    try:
        back = backward_of(forward())  # warm-up
        if back:
            back()
        if device == "cuda":
            torch.cuda.synchronize()
        recorder = Recorder(device)
        outputs = profiled(forward, recorder, "forward")
        back = backward_of(outputs)
        if back:
            profiled(back, recorder, "backward")
        run["ops"] = recorder.result()
        run["overloads"] = dispatched_overloads(forward)
    except Exception as e:  # an input that fails is reported, the others still run
        run["error"] = "%s: %s" % (type(e).__name__, str(e).splitlines()[0] if str(e) else "")
        user = [f for f in traceback.extract_tb(e.__traceback__) if f.filename == USER_FILENAME[0]]
        if user:
            lines = USER_FILENAME[1].splitlines()
            text = lines[user[-1].lineno - 1].strip() if 0 < user[-1].lineno <= len(lines) else ""
            run["error"] += " (%s line %d: %s)" % (user[-1].filename, user[-1].lineno, text)
    return run


# ---------------------------------------------------------------- inputs

USER_FILENAME = ["<code>", ""]  # the user's code's file name and text, to show its line in a traceback


def user_code(code, filename, device):
    import torch
    USER_FILENAME[:] = [filename, code]
    compiled = compile(code, filename, "exec")

    def forward():
        scope = {"__name__": "__optrace__", "torch": torch, "nn": torch.nn, "F": torch.nn.functional,
                 "device": device}
        exec(compiled, scope)
        return [v for k, v in scope.items() if not k.startswith("__") and isinstance(v, torch.Tensor)]
    return forward


def opinfo_names(query):
    """Names an OpInfo may carry for a query: F.softmax -> nn.functional.softmax."""
    q = query.strip()
    for prefix, repl in (("torch.nn.functional.", "nn.functional."), ("F.", "nn.functional."),
                         ("torch.Tensor.", ""), ("Tensor.", ""), ("torch.", ""), ("aten::", ""),
                         ("torch.ops.aten.", "")):
        if q.startswith(prefix):
            q = repl + q[len(prefix):]
            break
    return {q, q.split(".")[0] if q.count(".") == 1 and not q.startswith(("nn.", "linalg.", "special.", "fft."))
            else q}


def find_opinfos(query):
    stub_test_only_modules()
    from torch.testing._internal.common_methods_invocations import op_db
    names = opinfo_names(query)
    exact = [o for o in op_db if o.name in names]
    if exact:
        return exact
    aliased = [o for o in op_db if any(a.name in names for a in getattr(o, "aliases", ()) or ())]
    if aliased:
        return aliased
    return [o for o in op_db if getattr(o, "aten_name", None) in names]


def pick_dtype(opinfo, device, wanted):
    import torch
    supported = opinfo.supported_dtypes(device)
    order = [wanted] if wanted else []
    order += [torch.float32, torch.float64, torch.int64, torch.bool]
    for d in order:
        if d in supported:
            return d
    return next(iter(sorted(supported, key=str)), None)


def opinfo_runs(opinfos, device, dtype, samples, query_of):
    import torch
    runs = []
    for o in opinfos:
        label = o.name + ("." + o.variant_test_name if o.variant_test_name else "")
        d = pick_dtype(o, device, dtype)
        if d is None:
            runs.append({"label": label, "query": query_of(o), "error": "no supported dtype on " + device})
            continue
        grad = bool(o.supports_autograd) and (d.is_floating_point or d.is_complex)
        try:
            inputs = list(sample for _, sample in zip(range(samples), o.sample_inputs(device, d, requires_grad=grad)))
        except Exception as e:
            runs.append({"label": label, "query": query_of(o), "error": "sample inputs: %s: %s" % (type(e).__name__, e)})
            continue
        for i, s in enumerate(inputs):
            def forward(o=o, s=s):
                return o.op(s.input, *s.args, **s.kwargs)
            run = observe("%s sample %d (%s)" % (label, i, str(d).replace("torch.", "")), query_of(o), forward, device)
            run["opinfo"] = label
            runs.append(run)
    return runs


def opinfo_query(o):
    """The Python name a user would trace for an OpInfo."""
    import torch
    name = o.name
    if "." in name:
        return "torch." + name
    if callable(getattr(torch, name, None)) and not isinstance(getattr(torch, name), torch.dtype):
        return "torch." + name
    if callable(getattr(torch.Tensor, name, None)):
        return "Tensor." + name
    return "aten::" + (getattr(o, "aten_name", None) or name)


def module_runs(query, device, dtype, samples):
    import torch
    stub_test_only_modules()
    from torch.testing._internal.common_modules import module_db
    cls_name = query.strip().split(".")[-1]
    infos = [m for m in module_db if m.module_cls.__name__ == cls_name and
             m.module_cls.__module__.startswith("torch.nn")]
    if not infos:
        return None
    runs = []
    for m in infos:
        try:
            inputs = m.module_inputs_func(m, device=device, dtype=dtype or torch.float32,
                                          requires_grad=True, training=True)
        except TypeError:
            inputs = m.module_inputs_func(m, device=device, dtype=dtype or torch.float32, requires_grad=True)
        for i, mi in enumerate(inputs[:samples]):
            c, f = mi.constructor_input, mi.forward_input
            if f is None:
                continue
            module = m.module_cls(*c.args, **c.kwargs).to(device=device, dtype=dtype or torch.float32)

            def forward(module=module, f=f):
                return module(*f.args, **f.kwargs)
            run = observe("%s input %d%s" % (m.module_cls.__name__, i, (" (" + mi.desc + ")") if mi.desc else ""),
                          query, forward, device)
            run["moduleinfo"] = m.module_cls.__name__
            runs.append(run)
    return runs


def main():
    try:
        config = json.loads(sys.stdin.read())
    except ValueError as e:
        fail(14, "bad configuration: %s" % e)
    try:
        import torch
    except ImportError as e:
        fail(10, "torch cannot be imported by %s: %s" % (sys.executable, e), python=sys.executable)
    device = config.get("device", "cpu")
    header = {"schema": "optrace.observed/1", "torch_version": torch.__version__,
              "python": sys.executable, "device": device, "error": None}
    if device == "cuda":
        if not torch.cuda.is_available():
            fail(11, "device cuda is not available to torch %s (torch.cuda.is_available() is False)"
                 % torch.__version__, **header)
        header["device_name"] = torch.cuda.get_device_name(0)
        header["cuda"] = torch.version.cuda
    dtype = getattr(torch, config["dtype"], None) if config.get("dtype") else None
    if config.get("dtype") and not isinstance(dtype, torch.dtype):
        fail(14, "unknown dtype %r" % config["dtype"], **header)
    header["dtype"] = config.get("dtype") or "default"
    samples = int(config.get("samples", 3))
    mode, query = config.get("mode"), config.get("query", "")
    torch.manual_seed(0)
    start = time.time()
    if mode in ("code", "file"):
        try:
            forward = user_code(config["code"], config.get("filename", "<code>"), device)
        except SyntaxError as e:
            fail(12, "the code does not compile: %s (line %s)" % (e.msg, e.lineno), **header)
        run = observe(mode, query, forward, device, setup_in_run=True)
        if run["error"]:
            fail(12, "the code raised %s" % run["error"], runs=[run], **header)
        runs = [run]
    elif mode == "opinfo":
        runs = opinfo_runs(find_opinfos(query), device, dtype, samples, lambda o: query)
        if not runs:
            runs = module_runs(query, device, dtype, samples)
        if not runs:
            fail(13, "no OpInfo or ModuleInfo in the installed torch matches %r; give --code or --file" % query,
                 **header)
    elif mode == "all-opinfo":
        stub_test_only_modules()
        from torch.testing._internal.common_methods_invocations import op_db
        runs = opinfo_runs(op_db, device, dtype, 1, opinfo_query)
    else:
        fail(14, "unknown mode %r" % mode, **header)
    header["seconds"] = round(time.time() - start, 2)
    header["runs"] = runs
    RESULT.write(json.dumps(header) + "\n")
    RESULT.flush()


main()
