"""Compile time of a fixed set, cold and warm, against tileiras on the same bytecode (issue 22).

Usage::

    python benchmarks/compile_time.py [--out build/compile_time] [--only NAME ...] [--no-tileiras]

The set: every ``examples/*.mlir`` (cutlass MLIR, and the nv_tileaa tile program
``tile_gemm.mlir``) and cuTile programs of every kind, exported to CUDA Tile IR bytecode once
(cuTile's exporter runs on the CPU: fake device arrays describe the arguments): the GEMM family of
:mod:`tileorch.testing.dot_programs` (fp16, fused epilogues, bf16, batched, fp8 scaled), the
chained-dot programs of :mod:`tileorch.testing.attention_programs` (FlashAttention forward, the
fused MLP) and SIMT programs (softmax, layernorm, a row sum) written here.

For each input:

``cold``
    ``python -m tileorch compile FILE -o OUT.ptx --timings`` in a fresh process with ``TILEORCH_CACHE=0``:
    the process's wall time (``cold_s``: interpreter start-up and imports included), and the
    compile's own report (``cold_compile_s`` and the per-phase breakdown, :mod:`tileorch.timing`).
``warm``
    ``tileorch.compile`` in this process, cache off, after one compile of the same input (imports
    done, LLVM initialised): the best of ``--repeat`` compiles (``warm_s``, its breakdown).
``hit``
    ``tileorch.compile`` answered by the on-disk cache (a fresh ``TILEORCH_CACHE_DIR`` filled by
    one compile; ``hit_s``).
``relaunch``
    the same cache read by a new process (``python -c "import tileorch; tileorch.compile(FILE)"``):
    ``relaunch_s`` (its wall time, interpreter start-up included; best of 3 processes, each in
    ``relaunch_walls_s``), ``relaunch_import_s`` and ``relaunch_call_s`` (the compile call that
    reads the cubin back).
``cutile relaunch`` (cuTile inputs)
    what ``tileorch.cutile.launch`` does before its module load and launch, in a new process
    with the same cache filled: import cuTile and the launcher, define the kernels, then
    ``rc.compiled`` for the described arguments (found by the kernel's source identity, no
    bytecode export: ``cutile_relaunch_found`` says how): ``cutile_relaunch_s`` (wall),
    ``cutile_relaunch_import_s``, ``cutile_relaunch_define_s``, ``cutile_relaunch_call_s``, and
    whether cuTile's compiler or xDSL was imported.  The summary prints the largest relaunch and
    a bare ``python -c pass`` (the interpreter's own start-up in this environment).
``tileiras``
    ``tileiras --gpu-name=sm_90 -o OUT.cubin FILE.tileirbc`` on the same bytecode (cuTile inputs
    only; found as ``tileorch doctor`` finds it, or ``--tileiras PATH``; ``<bin>/../lib`` joins
    ``LD_LIBRARY_PATH`` for its libnvvm): the best of ``--repeat`` runs' wall time.

Before the first cold compile, the sources of tileorch (and xDSL, llvmlite) are byte-compiled
(``compileall``, as ``pip install`` does for an installed package; the device sessions set
``PYTHONDONTWRITEBYTECODE``, and every cold process then compiled tileorch's ~100 modules from
source: 0.2 s of a cold SIMT compile on the 2-core machine), and the code of the methods that
``dataclasses`` generates is kept (``python -m tileorch.tools.warm_dataclass_code``:
:mod:`tileorch.dataclass_code`).  ``--no-byte-compile`` leaves them as they are.

Wall seconds are printed with the CPU seconds (user + system, children included) beside them:
on a shared machine the CPU time is the steadier number.  The JSON record (``--out``, default
``build/compile_time``: ``compile_time.json``) holds every number and every breakdown; the
per-phase table is printed for the three slowest cold compiles, and the phases and passes that
take the most time summed over the whole set.
"""

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


# --------------------------------------------------------------------------- cuTile programs

def _cutile_programs() -> dict[str, tuple]:
    """name -> (kernel, [array (shape, dtype) or scalar/constant value], kind) of the cuTile set."""
    import math

    import cuda.tile as ct

    from tileorch.testing import attention_programs as ap
    from tileorch.testing import dot_programs as dp

    @ct.kernel
    def softmax_rows(x, y, tn: ct.Constant[int]):
        row = ct.load(x, index=(ct.bid(0), 0), shape=(1, tn)).astype(ct.float32)
        e = ct.exp(row - ct.max(row, axis=1, keepdims=True))
        ct.store(y, index=(ct.bid(0), 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(y.dtype))

    @ct.kernel
    def layernorm_rows(x, w, b, y, tn: ct.Constant[int]):
        row = ct.load(x, index=(ct.bid(0), 0), shape=(1, tn)).astype(ct.float32)
        mean = ct.sum(row, axis=1, keepdims=True) / tn
        d = row - mean
        rstd = ct.rsqrt(ct.sum(d * d, axis=1, keepdims=True) / tn + 1e-5)
        gw = ct.load(w, index=(0,), shape=(tn,)).astype(ct.float32)
        gb = ct.load(b, index=(0,), shape=(tn,)).astype(ct.float32)
        ct.store(y, index=(ct.bid(0), 0), tile=(d * rstd * gw[None, :] + gb[None, :]).astype(y.dtype))

    @ct.kernel
    def row_sum(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
        acc = ct.zeros((tm,), dtype=ct.float32)
        for j in range(ct.num_tiles(x, axis=1, shape=(tm, tn))):
            acc = acc + ct.sum(ct.load(x, index=(ct.bid(0), j), shape=(tm, tn)).astype(ct.float32), axis=1)
        ct.store(y, index=(ct.bid(0),), tile=acc)

    m, n, k = 1024, 512, 384
    gemm = [((m, k), "float16"), ((k, n), "float16"), ((m, n), "float16")]
    dot = {
        "gemm_f16": gemm,
        "gemm_bias_relu_f16": [((m, k), "float16"), ((k, n), "float16"), ((n,), "float16"), ((m, n), "float16")],
        "linear_gelu_bf16": [((m, k), "bfloat16"), ((n, k), "bfloat16"), ((n,), "bfloat16"), ((m, n), "bfloat16")],
        "bmm_f16": [((4, m, k), "float16"), ((4, k, n), "float16"), ((4, m, n), "float16")],
        "gemm_fp8_e4m3_scaled": [((m, k), "float8_e4m3fn"), ((n, k), "float8_e4m3fn"), ((m, n), "bfloat16"), 0.25,
                                 0.5],
    }
    out = {name: (dp.PROGRAMS[name].kernel, spec + list(dp.PROGRAMS[name].tiles), "gemm")
           for name, spec in dot.items()}
    bh, seq, d = 8, 1024, 64
    qkv = [((bh, seq, d), "float16")] * 4
    out["attention_fwd_f16"] = (ap.attention_fwd, qkv + [1.0 / math.sqrt(d) / math.log(2.0), seq, 128, 64, d, False],
                                "chained")
    out["attention_fwd_causal_f16"] = (ap.attention_fwd,
                                       qkv + [1.0 / math.sqrt(d) / math.log(2.0), seq, 128, 64, d, True], "chained")
    out["mlp_chain_f16"] = (ap.mlp_chain, [((m, 128), "float16"), ((128, 512), "float16"), ((512, 128), "float16"),
                                           ((m, 128), "float16"), 128, 64, 128, 128], "chained")
    rows, cols = 4096, 1024
    out["softmax_f16"] = (softmax_rows, [((rows, cols), "float16"), ((rows, cols), "float16"), cols], "simt")
    out["layernorm_bf16"] = (layernorm_rows, [((rows, cols), "bfloat16"), ((cols,), "bfloat16"), ((cols,), "bfloat16"),
                                              ((rows, cols), "bfloat16"), cols], "simt")
    out["row_sum_f32"] = (row_sum, [((rows, 8 * cols), "float32"), ((rows,), "float32"), 16, 256], "simt")
    return out


from tileorch.testing.export import export_cutile  # noqa: E402  (cuTile bytecode without a GPU)


# --------------------------------------------------------------------------- measuring

def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _cpu() -> float:
    return time.process_time() + _children_cpu()


def run_process(cmd: list[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess]:
    """(wall seconds, CPU seconds, completed process) of ``cmd``."""
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return time.perf_counter() - t0, _children_cpu() - c0, proc


def tileorch_cold(path: Path, work: Path) -> dict:
    from tileorch import timing

    # ``python -m tileorch``: the program entry of the tileorch this process imports (an installed
    # console script may be older than the sources and name another entry point)
    cli = [sys.executable, "-m", "tileorch"]
    env = {**os.environ, "TILEORCH_CACHE": "0"}
    wall, cpu, proc = run_process([*cli, "compile", str(path), "-o", str(work / "cold.ptx"), "--timings"], env)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-5:]}
    report = timing.parse_report(proc.stderr)
    compile_s = report.get(timing.TOTAL)
    return {"cold_s": wall, "cold_cpu_s": cpu, "cold_compile_s": compile_s,
            "startup_s": wall - compile_s if compile_s is not None else None, "cold_timings": report}


def tileorch_warm(path: Path, repeat: int, cutile: tuple | None = None) -> dict:
    """Warm (cache off, second and later compiles of this process) and cache-hit times; with
    ``cutile`` ((name, kernel, spec) of a cuTile program), :func:`cutile_relaunch` too."""
    import tileorch

    source = path.read_bytes() if path.suffix == ".tileirbc" else str(path)
    arch = None
    tileorch.compile(source, arch, cache=False, isolate=True)  # the first compile: imports, LLVM init
    walls, cpus, kernels = [], [], []
    for _ in range(repeat):
        c0, t0 = _cpu(), time.perf_counter()
        kernels.append(tileorch.compile(source, arch, cache=False, isolate=True))
        walls.append(time.perf_counter() - t0)
        cpus.append(_cpu() - c0)
    kernel = kernels[walls.index(min(walls))]  # the breakdown of the best run
    i = walls.index(min(walls))
    out = {"warm_s": walls[i], "warm_cpu_s": cpus[i], "warm_timings": kernel.timings,
           "ptx_lines": kernel.ptx.count("\n"), "arch": kernel.arch,
           "remark": next((r for r in kernel.remarks if "compiled" in r), "")}
    with tempfile.TemporaryDirectory(prefix="tileorch-ct-cache-") as cache_dir:
        old = os.environ.get("TILEORCH_CACHE_DIR")
        os.environ["TILEORCH_CACHE_DIR"] = cache_dir
        try:
            tileorch.compile(source, arch, cache=True, isolate=True)  # fills the cache
            t0 = time.perf_counter()
            hit = tileorch.compile(source, arch, cache=True, isolate=True)
            out["hit_s"] = time.perf_counter() - t0
            assert hit.from_cache, "the second compile did not hit the cache"
            out.update(tileorch_relaunch(path))
            if cutile is not None:
                out.update(cutile_relaunch(*cutile))
        finally:
            if old is None:
                os.environ.pop("TILEORCH_CACHE_DIR", None)
            else:
                os.environ["TILEORCH_CACHE_DIR"] = old
    return out


RELAUNCH = ("import sys, time; t0 = time.perf_counter(); import tileorch; t1 = time.perf_counter(); "
            "k = tileorch.compile(sys.argv[1], None, isolate=True); "
            "print(t1 - t0, time.perf_counter() - t1, k.from_cache, len(k.cubin))")


RELAUNCH_REPEAT = 3
"""Relaunch processes per program: the best is reported (as :func:`python_startup_s` reports the
best of its start-ups; one process's wall time on a shared host is mostly the host's noise)."""


def tileorch_relaunch(path: Path) -> dict:
    """A relaunch in a fresh process with the cache filled (``TILEORCH_CACHE_DIR`` as set by the
    caller), best of :data:`RELAUNCH_REPEAT` processes: the process's wall time (``relaunch_s``,
    interpreter start-up included; ``relaunch_walls_s`` each one), the import of tileorch and the
    ``tileorch.compile`` call that reads the cubin back (``relaunch_call_s``) of the best."""
    best, walls = None, []
    for _ in range(RELAUNCH_REPEAT):
        wall, _cpu, proc = run_process([sys.executable, "-c", RELAUNCH, str(path)], dict(os.environ))
        fields = proc.stdout.split()
        if proc.returncode != 0 or len(fields) != 4 or fields[2] != "True":
            return {"relaunch_error": (proc.stderr or proc.stdout).strip().splitlines()[-3:]}
        walls.append(round(wall, 4))
        if best is None or wall < best[0]:
            best = (wall, float(fields[0]), float(fields[1]))
    return {"relaunch_s": best[0], "relaunch_import_s": best[1], "relaunch_call_s": best[2], "relaunch_walls_s": walls}


CUTILE_RELAUNCH = (
    "import sys, time; t0 = time.perf_counter(); import cuda.tile; from tileorch.launchers import cutile as rc; "
    "t1 = time.perf_counter(); sys.path.insert(0, sys.argv[2]); import compile_time as ct_bench; "
    "from tileorch.testing.export import described_arguments; kernel, spec, _ = ct_bench._cutile_programs()[sys.argv[1]]; "
    "t2 = time.perf_counter(); e = rc.compiled(kernel, described_arguments(kernel, spec), 'sm_90a', 'persistent'); "
    "t3 = time.perf_counter(); print(t1 - t0, t2 - t1, t3 - t2, t3 - t0, 'cuda.tile._compile' in sys.modules, "
    "'xdsl' in sys.modules); print(e.source_key_remark)")


def cutile_relaunch(name: str, kernel, spec: list) -> dict:
    """What ``tileorch.cutile.launch`` of ``name`` does before its launch, in a new process with the
    cache filled (``TILEORCH_CACHE_DIR`` as set by the caller): ``rc.compiled`` for the described
    arguments (no GPU: the module load and launch are left out).  Filled here first (this process
    exports and compiles through the cache).  ``cutile_relaunch_s``: the new process's wall time;
    ``cutile_relaunch_import_s`` (cuTile and the launcher), ``cutile_relaunch_define_s`` (the
    kernels' module: the user's code), ``cutile_relaunch_call_s``; whether cuTile's compiler or
    xDSL was imported, and how the program was found."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import described_arguments

    rc.compiled(kernel, described_arguments(kernel, spec), "sm_90a", "persistent")  # fills the cache
    wall, _cpu, proc = run_process([sys.executable, "-c", CUTILE_RELAUNCH, name, str(Path(__file__).parent)],
                                   dict(os.environ))
    lines = proc.stdout.strip().splitlines()
    fields = lines[0].split() if lines else []
    if proc.returncode != 0 or len(fields) != 6:
        return {"cutile_relaunch_error": (proc.stderr or proc.stdout).strip().splitlines()[-3:]}
    return {"cutile_relaunch_s": wall, "cutile_relaunch_import_s": float(fields[0]),
            "cutile_relaunch_define_s": float(fields[1]), "cutile_relaunch_call_s": float(fields[2]),
            "cutile_relaunch_imported_cutile_compiler": fields[4] == "True",
            "cutile_relaunch_imported_xdsl": fields[5] == "True", "cutile_relaunch_found": " ".join(lines[1:])}


def python_startup_s(repeat: int = 5) -> float:
    """Best wall seconds of ``python -c pass`` (this interpreter, this environment): the part of
    ``relaunch_s`` that is the interpreter's start-up (site-packages' ``.pth`` files included)."""
    return min(run_process([sys.executable, "-c", "pass"], dict(os.environ))[0] for _ in range(repeat))


def byte_compile_tileorch() -> str:
    """Byte-compile the sources of tileorch, xDSL and llvmlite as imported here (``.pyc`` next to
    them, as ``pip install`` leaves an installed package; up-to-date ones are left alone): what
    was done, for the report's header."""
    import compileall
    import importlib.util

    done = []
    for name in ("tileorch", "xdsl", "llvmlite"):
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        package = list(spec.submodule_search_locations)[0]
        try:
            ok = compileall.compile_dir(package, quiet=1)
        except OSError as exc:
            done.append(f"{name}: not byte-compiled ({exc})")
            continue
        done.append(name if ok else f"{name} (with errors)")
    # the code of the dataclasses' generated methods, kept as the .pyc files keep the modules'
    # (tileorch.dataclass_code; a cold `tileorch compile` reads it)
    proc = subprocess.run([sys.executable, "-m", "tileorch.tools.warm_dataclass_code"], capture_output=True, text=True,
                          env=dict(os.environ))
    done.append("dataclass code" if proc.returncode == 0 else f"dataclass code NOT kept ({proc.stderr.strip()[-200:]})")
    return "byte-compiled: " + ", ".join(done)


def find_tileiras(explicit: str | None) -> str | None:
    if explicit:
        return explicit
    try:
        from tileorch.cli.doctor import tileiras_candidates

        found = tileiras_candidates()
        return found[0][0] if found else None
    except Exception:  # noqa: BLE001
        return shutil.which("tileiras")


def tileiras_env(tileiras: str) -> dict[str, str]:
    env = dict(os.environ)
    lib = Path(tileiras).resolve().parent.parent / "lib"
    if lib.is_dir():
        env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (str(lib), env.get("LD_LIBRARY_PATH", "")) if p)
    bindir = str(Path(tileiras).resolve().parent)  # its ptxas, if it calls one
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env


def run_tileiras(tileiras: str, path: Path, work: Path, repeat: int) -> dict:
    env = tileiras_env(tileiras)
    walls, cpus = [], []
    for _ in range(repeat):
        wall, cpu, proc = run_process([tileiras, "--gpu-name=sm_90", "-o", str(work / "tileiras.cubin"), str(path)],
                                      env)
        if proc.returncode != 0:
            return {"tileiras_error": (proc.stderr or proc.stdout).strip().splitlines()[-3:]}
        walls.append(wall)
        cpus.append(cpu)
    i = walls.index(min(walls))
    return {"tileiras_s": walls[i], "tileiras_cpu_s": cpus[i]}


def tileiras_version(tileiras: str) -> str:
    proc = subprocess.run([tileiras, "--version"], capture_output=True, text=True, env=tileiras_env(tileiras))
    m = re.search(r"(V\d[\d.]+|release [\d.]+|Built on [^\n]+)", proc.stdout)
    return m.group(1) if m else proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else "?"


# --------------------------------------------------------------------------- report

def _fmt(v, spec="7.2f") -> str:
    return format(v, spec) if isinstance(v, (int, float)) else format("-", ">" + spec.split(".")[0])


def _ratio(a, b) -> float | None:
    return a / b if isinstance(a, (int, float)) and isinstance(b, (int, float)) and b > 0 else None


def print_table(rows: list[dict]) -> None:
    print(f"{'program':28s} {'input':9s} {'path':7s} {'cold':>7s} {'(cpu)':>7s} {'compile':>7s} {'warm':>7s} "
          f"{'(cpu)':>7s} {'hit':>7s} {'tileiras':>8s} {'(cpu)':>7s} {'cold/ti':>7s} {'warm/ti':>7s} {'cpu c/ti':>8s} "
          f"{'cpu w/ti':>8s}")
    for r in rows:
        if "error" in r:
            print(f"{r['name']:28s} {r['input']:9s} FAILED {r['error']}")
            continue
        print(f"{r['name']:28s} {r['input']:9s} {r.get('path', ''):7s} {_fmt(r.get('cold_s'))} "
              f"{_fmt(r.get('cold_cpu_s'))} {_fmt(r.get('cold_compile_s'))} {_fmt(r.get('warm_s'))} "
              f"{_fmt(r.get('warm_cpu_s'))} {_fmt(r.get('hit_s'), '7.3f')} {_fmt(r.get('tileiras_s'), '8.2f')} "
              f"{_fmt(r.get('tileiras_cpu_s'))} {_fmt(r.get('cold_vs_tileiras'))} {_fmt(r.get('warm_vs_tileiras'))} "
              f"{_fmt(r.get('cold_cpu_vs_tileiras_cpu'), '8.2f')} {_fmt(r.get('warm_cpu_vs_tileiras_cpu'), '8.2f')}")


def sinks(rows: list[dict], key: str, top: int = 12) -> list[tuple[str, float, float]]:
    """(phase or pass, seconds summed over the set, share of the summed totals), largest first:
    leaves only (a pass, or a phase without passes), so nothing is counted twice."""
    from tileorch import timing

    summed: dict[str, float] = {}
    grand = 0.0
    for r in rows:
        t = r.get(key) or {}
        grand += t.get(timing.TOTAL, 0.0)
        for name, v in t.items():
            if name == timing.TOTAL or any(other.startswith(name + "/") for other in t):
                continue
            leaf = name.split("/")[-1] if name.endswith("/verify") else name  # one "verify" row however nested
            summed[leaf] = summed.get(leaf, 0.0) + v
    ranked = sorted(summed.items(), key=lambda kv: -kv[1])[:top]
    return [(name, v, v / grand if grand else 0.0) for name, v in ranked]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=str(ROOT / "build" / "compile_time"), help="directory of the JSON record")
    ap.add_argument("--only", nargs="*", default=None, help="names (example stems, cuTile program names) to run")
    ap.add_argument("--repeat", type=int, default=3, help="warm compiles and tileiras runs per input (default 3)")
    ap.add_argument("--tileiras", default=None, help="the tileiras binary (default: as tileorch doctor finds it)")
    ap.add_argument("--no-tileiras", action="store_true", help="do not time tileiras")
    ap.add_argument("--no-byte-compile", action="store_true",
                    help="do not byte-compile tileorch's sources before the cold compiles (as an installed package "
                         "is); with PYTHONDONTWRITEBYTECODE every cold process then compiles them from source")
    args = ap.parse_args(argv)

    from tileorch import timing
    from tileorch.progress import Progress

    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    bc_dir = out_dir / "bytecode"
    bc_dir.mkdir(exist_ok=True)
    tileiras = None if args.no_tileiras else find_tileiras(args.tileiras)

    inputs: list[dict] = []
    for path in sorted((ROOT / "examples").glob("*.mlir")):
        kind = "nv_tileaa" if "nv_tileaa.func" in path.read_text() else "cutlass"
        inputs.append({"name": path.stem, "input": kind, "file": path})
    t0 = time.perf_counter()
    for name, (kernel, spec, path_kind) in _cutile_programs().items():
        if args.only and name not in args.only:
            continue
        try:
            inputs.append({"name": name, "input": "cuTile", "file": export_cutile(name, kernel, spec, bc_dir),
                           "expected": path_kind, "cutile": (name, kernel, spec)})
        except Exception as exc:  # noqa: BLE001
            inputs.append({"name": name, "input": "cuTile", "file": None,
                           "error": f"export failed: {type(exc).__name__}: {exc}"})
    export_s = time.perf_counter() - t0
    sources = "left as they are" if args.no_byte_compile else byte_compile_tileorch()
    if args.only:
        inputs = [i for i in inputs if i["name"] in args.only]

    print(f"tileorch compile time: {len(inputs)} inputs, python {platform.python_version()}, "
          f"{os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}; cuTile export {export_s:.1f}s; tileorch sources "
          f"{sources}; tileiras: "
          f"{f'{tileiras} ({tileiras_version(tileiras)})' if tileiras else 'not found (not timed)'}", flush=True)
    rows: list[dict] = []
    progress = Progress("compile_time", total=len(inputs), unit="inputs")
    with tempfile.TemporaryDirectory(prefix="tileorch-ct-") as tmp:
        work = Path(tmp)
        for item in inputs:
            row = {"name": item["name"], "input": item["input"],
                   "file": str(item["file"].relative_to(ROOT) if item["file"] and item["file"].is_relative_to(ROOT)
                               else item["file"])}
            if "error" in item:
                row["error"] = item["error"]
            else:
                row.update(tileorch_cold(item["file"], work))
                if "error" not in row:
                    try:
                        row.update(tileorch_warm(item["file"], args.repeat, item.get("cutile")))
                    except Exception as exc:  # noqa: BLE001
                        row["error"] = f"{type(exc).__name__}: {exc}"
                remark = row.get("remark", "")
                row["path"] = ("tier" if "TileAS tier" in remark and "chained" not in remark else
                               "chained" if "chained" in remark else "simt" if item["input"] != "cutlass" else "-")
                if tileiras and item["input"] == "cuTile":
                    row.update(run_tileiras(tileiras, item["file"], work, args.repeat))
                    row["cold_vs_tileiras"] = _ratio(row.get("cold_s"), row.get("tileiras_s"))
                    row["warm_vs_tileiras"] = _ratio(row.get("warm_s"), row.get("tileiras_s"))
                    row["cold_cpu_vs_tileiras_cpu"] = _ratio(row.get("cold_cpu_s"), row.get("tileiras_cpu_s"))
                    row["warm_cpu_vs_tileiras_cpu"] = _ratio(row.get("warm_cpu_s"), row.get("tileiras_cpu_s"))
            rows.append(row)
            progress.step()
    progress.finish()

    print()
    print("seconds: cold = fresh `tileorch compile` process with TILEORCH_CACHE=0 (wall; its CPU; compile = its "
          "--timings total, without interpreter start-up); warm = same process, cache off, best of --repeat; hit = cache "
          "hit; tileiras = best wall on the same bytecode (cuTile inputs); x/ti = tileorch / tileiras (wall, then CPU)")
    print_table(rows)
    ok = [r for r in rows if "error" not in r]

    def geo(key):
        vals = [r[key] for r in ok if isinstance(r.get(key), (int, float)) and r[key] > 0]
        return (statistics.geometric_mean(vals) if vals else None), len(vals)

    summary = {}
    for key in ("cold_vs_tileiras", "warm_vs_tileiras", "cold_cpu_vs_tileiras_cpu", "warm_cpu_vs_tileiras_cpu"):
        g, n = geo(key)
        summary[f"{key}_geomean"] = g
        if g is not None:
            print(f"geomean {key}: {g:.2f} over {n} cuTile programs")
    for key in ("cold_s", "cold_compile_s", "warm_s", "hit_s", "relaunch_s", "relaunch_call_s", "tileiras_s"):
        vals = [r[key] for r in ok if isinstance(r.get(key), (int, float))]
        summary[f"{key}_sum"] = sum(vals)
        print(f"sum {key}: {sum(vals):.2f}s over {len(vals)} inputs")
    for key in ("cutile_relaunch_s", "cutile_relaunch_call_s"):
        vals = [r[key] for r in ok if isinstance(r.get(key), (int, float))]
        if vals:
            summary[f"{key}_max"] = max(vals)
            print(f"max {key}: {max(vals):.3f}s over {len(vals)} cuTile programs")
    relaunches = [r["relaunch_s"] for r in ok if isinstance(r.get("relaunch_s"), (int, float))]
    if relaunches:
        startup = python_startup_s()
        summary["relaunch_s_max"], summary["python_startup_s"] = max(relaunches), startup
        print(f"relaunch (fresh process, cache hit): max {max(relaunches):.3f}s (target < 0.100 s); a bare "
              f"`python -c pass` in the same environment {startup:.3f}s of it (best of 5)")

    slowest = sorted(ok, key=lambda r: -(r.get("cold_compile_s") or 0))[:3]
    for r in slowest:
        print()
        print(timing.format_report(r["cold_timings"], f"{r['name']} ({r['input']}): cold tileorch compile"), end="")

    for key, label in (("cold_timings", "cold"), ("warm_timings", "warm")):
        ranked = sinks(ok, key)
        print(f"\ntop time sinks, {label} (leaf phases and passes summed over {len(ok)} inputs, share of the summed "
              "totals):")
        for name, v, share in ranked:
            print(f"  {v:8.3f}s ({100 * share:5.1f}%)  {name}")
        summary[f"top_sinks_{label}"] = [{"name": n, "seconds": v, "share": s} for n, v, s in ranked]

    record = {"date": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "python": platform.python_version(),
              "cpus": os.cpu_count(), "tileorch_sources": sources, "tileiras": tileiras, "tileiras_version": tileiras_version(tileiras) if tileiras
              else None, "repeat": args.repeat, "export_s": export_s, "summary": summary, "programs": rows}
    (out_dir / "compile_time.json").write_text(json.dumps(record, indent=1, default=str))
    print(f"\nwrote {out_dir / 'compile_time.json'}")
    return 1 if len(ok) != len(rows) else 0


if __name__ == "__main__":
    sys.exit(main())
