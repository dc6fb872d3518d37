"""Where the suite's CPU goes, by kind of work (``--cpu-categories=DIR``): each pytest process (the
xdist workers too) wraps the compiler's and the test helpers' entry points, adds the CPU seconds
spent in each, exclusive of the wrapped calls inside it (user+sys of the process; subprocesses,
the forked LLVM codegen and ptxas, counted apart as ``children``), and writes ``DIR/<worker>.json``
at its session end; the controller prints the sum.

A measuring aid: the wrappers cost a few microseconds a call; what is not inside a wrapped call
(test bodies, numpy references, fixtures, pytest itself) is ``other``, the tests that run
hypothesis are summed apart (their whole CPU, which overlaps the other rows), and the children's
CPU outside every wrapped call is the tool subprocesses' (lit, ``python -m tileorch...`` forks of
tests/tool_forkserver.py, iree-opt, the cuTile export scripts of module fixtures).

Repeated compiles: the top-level calls of ``compile_program``, ``lower_program`` and
``compile_lowered`` (not those inside another) are logged with a digest of their input (bytes,
printed modules, options, the ``TILEORCH_*`` switches), their test and CPU seconds
(``DIR/<worker>.inputs.jsonl``); the report's last line counts the calls whose input an earlier
call (any process) already compiled.  Printing the modules costs CPU of its own (outside the
rows above) and a test that patches a compile step compiles "the same input" legitimately: a
guide to where sharing may pay, not a verdict."""

from __future__ import annotations

import importlib
import json
import os
import resource
from collections import defaultdict

# (module, attribute, category); a category's calls inside another's are taken out of the outer one
TARGETS = (
    ("tileorch.launchers.cutile", "export_bytecode", "cuTile export"),
    ("tileorch.frontend.cutile", "load", "bytecode read + cuda_tile verify"),
    ("tileorch.diagnostics", "parse_module", "xDSL parse"),
    ("tileorch.diagnostics", "verify_located", "xDSL verify"),
    ("tileorch.backend.compile", "translate_module", "LLVM IR translation"),
    ("tileorch.backend.compile", "llvm_to_ptx", "LLVM codegen (llvmlite)"),
    ("tileorch.backend.compile", "start_codegen", "LLVM codegen (llvmlite)"),
    ("tileorch.backend.compile", "run_ptxas", "ptxas"),
    ("tileorch.driver", "lower_program", "lowering (Python passes)"),
    ("tileorch.driver", "compile_program", "lowering (Python passes)"),
    ("tileorch.backend.compile", "compile_lowered", "lowering (Python passes)"),
    ("tileorch.testing.ptx_emulator.Emu", "run", "emulators/interpreters"),
    ("simt_interp.Interpreter", "run", "emulators/interpreters"),
    ("llvm_int_interp.Interpreter", "run", "emulators/interpreters"),
)

_TOTALS: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
_STACK: list[list[float]] = []


def _now() -> tuple[float, float]:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime, children.ru_utime + children.ru_stime + served_cpu_s()


def served_cpu_s() -> float:
    """CPU seconds of the code generation server's children so far (tileorch.backend.codegen_server:
    they count in ``RUSAGE_CHILDREN`` only once the server is reaped, at the session's end)."""
    import sys

    codegen = sys.modules.get("tileorch.backend.codegen_server")
    return codegen.children_cpu_s() if codegen is not None and codegen.running() else 0.0


def _wrap(fn, category: str):
    def wrapped(*args, **kwargs):
        s0, c0 = _now()
        _STACK.append([0.0, 0.0])
        try:
            return fn(*args, **kwargs)
        finally:
            inner_s, inner_c = _STACK.pop()
            s1, c1 = _now()
            total = _TOTALS[category]
            total[0] += (s1 - s0) - inner_s
            total[1] += (c1 - c0) - inner_c
            total[2] += 1
            if _STACK:
                _STACK[-1][0] += s1 - s0
                _STACK[-1][1] += c1 - c0

    wrapped.__wrapped__ = fn
    return wrapped


def _resolve(path: str):
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


# the compiler's entry points whose inputs are logged (``DIR/<worker>.inputs.jsonl``: a digest of the
# input, the test, the CPU seconds): the report's "same input compiled again" rows
INPUT_TARGETS = (
    ("tileorch.driver", "compile_program", "compile_program"),
    ("tileorch.driver", "lower_program", "lower_program"),
    ("tileorch.backend.compile", "compile_lowered", "compile_lowered"),
)
_INPUTS: list[dict] = []
_DEPTH = [0]


def _digest(entry: str, args, kwargs) -> str:
    import hashlib

    h = hashlib.sha256(entry.encode())
    for a in list(args) + sorted(kwargs.items()):
        if isinstance(a, bytes):
            h.update(a)
        elif type(a).__name__ == "ModuleOp":
            try:
                h.update(str(a).encode())
            except Exception:  # noqa: BLE001  (a module that does not print: counted as distinct)
                h.update(repr(id(a)).encode())
        elif type(a).__name__ == "Context":
            continue
        else:
            h.update(repr(a).encode())
    h.update(repr(sorted((k, v) for k, v in os.environ.items() if k.startswith("TILEORCH_")
                         and k not in ("TILEORCH_CACHE_DIR", "TILEORCH_BACKEND_MEMO", "TILEORCH_TEST_COMPILE_MEMO"))).encode())
    return h.hexdigest()[:16]


def _log_inputs(fn, entry: str):
    def logged(*args, **kwargs):
        if _DEPTH[0]:  # inside another logged entry point: counted there
            return fn(*args, **kwargs)
        key = _digest(entry, args, kwargs)  # before the call: lower_program changes its module
        s0, c0 = _now()
        _DEPTH[0] += 1
        try:
            return fn(*args, **kwargs)
        finally:
            _DEPTH[0] -= 1
            s1, c1 = _now()
            _INPUTS.append({"entry": entry, "key": key, "cpu": round((s1 - s0) + (c1 - c0), 3),
                            "test": os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" (", 1)[0],
                            "ptxas": kwargs.get("ptxas", None),
                            "data": _digest("", [a for a in args if isinstance(a, bytes)], {})})

    logged.__wrapped__ = fn
    return logged


def install() -> None:
    """Wrap every target that imports here (tests/unit's helper modules through sys.path)."""
    import sys

    unit = os.path.join(os.path.dirname(__file__), "unit")
    if unit not in sys.path:
        sys.path.insert(0, unit)
    for owner, attr, category in TARGETS:
        try:
            obj = _resolve(owner)
        except Exception:  # noqa: BLE001  (an optional module: no row)
            continue
        setattr(obj, attr, _wrap(getattr(obj, attr), category))
    for owner, attr, entry in INPUT_TARGETS:
        try:
            obj = _resolve(owner)
        except Exception:  # noqa: BLE001
            continue
        setattr(obj, attr, _log_inputs(getattr(obj, attr), entry))
    _repristine_emulator()


def _repristine_emulator() -> None:
    """Take the PTX emulator's ``PRISTINE`` snapshot again with the wrapper above in place: the
    emulation memo serves only an unpatched emulator (``emulation_memo.emulator_unpatched``), so
    without this a profiled run bypassed every memo and counted each repeated emulation again."""
    import sys

    emulator = sys.modules.get("tileorch.testing.ptx_emulator")
    if emulator is None:
        return
    module_ns = {k: v for k, v in vars(emulator).items() if k != "PRISTINE"}
    emulator.PRISTINE = (emulator.Emu, dict(vars(emulator.Emu)), module_ns)


def record_test(category: str, s: float) -> None:
    _TOTALS[category][0] += s
    _TOTALS[category][2] += 1


def write(directory: str, worker: str, session_cpu: tuple[float, float]) -> None:
    os.makedirs(directory, exist_ok=True)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # a fork's cost grows with it
    with open(os.path.join(directory, f"{worker}.json"), "w") as f:
        json.dump({"session": session_cpu, "categories": dict(_TOTALS), "peak_rss_mb": peak_mb}, f, indent=1)
    with open(os.path.join(directory, f"{worker}.inputs.jsonl"), "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in _INPUTS)


def report(directory: str, write_line) -> None:
    sums: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    session = [0.0, 0.0]
    peaks = []
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".json"):
            continue
        with open(os.path.join(directory, name)) as f:
            data = json.load(f)
        peaks.append(f"{name[:-5]} {data.get('peak_rss_mb', 0):.0f} MB")
        session[0] += data["session"][0]
        session[1] += data["session"][1]
        for category, (s, c, n) in data["categories"].items():
            sums[category][0] += s
            sums[category][1] += c
            sums[category][2] += n
    apart = {k: sums.pop(k) for k in list(sums) if k.startswith("(")}
    own = session[0] - sum(v[0] for v in sums.values())
    children = session[1] - sum(v[1] for v in sums.values())
    sums["other: test code, numpy references, pytest, imports (own); tool subprocesses (children)"] = [own, children, 0]
    write_line(f"CPU of the pytest processes: {session[0] + session[1]:.1f} s ({session[0]:.1f} own + "
               f"{session[1]:.1f} children); peak resident memory: {', '.join(peaks)}")
    for category, (s, c, n) in sorted(sums.items(), key=lambda kv: -(kv[1][0] + kv[1][1])):
        write_line(f"{s + c:8.1f} s ({s:7.1f} own + {c:7.1f} children) {int(n):7d} calls  {category}")
    for category, (s, c, n) in apart.items():
        write_line(f"{s + c:8.1f} s {int(n):7d} tests  {category}")
    inputs = []
    for name in sorted(os.listdir(directory)):
        if name.endswith(".inputs.jsonl"):
            with open(os.path.join(directory, name)) as f:
                inputs.extend(json.loads(line) for line in f)
    seen: dict[str, list[dict]] = defaultdict(list)
    for r in inputs:
        seen[r["key"]].append(r)
    again = [r for rs in seen.values() for r in rs[1:]]
    write_line(f"{len(inputs)} compiles (compile_program, lower_program, compile_lowered at the top level): "
               f"{sum(r['cpu'] for r in inputs):.1f} s; {len(seen)} distinct inputs; the same input again: "
               f"{len(again)} calls, {sum(r['cpu'] for r in again):.1f} s")
