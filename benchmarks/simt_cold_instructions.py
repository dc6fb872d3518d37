"""Instructions per phase and per pass of a cold SIMT compile in a fresh process, counted by callgrind (issue 22).

Usage::

    python benchmarks/simt_cold_instructions.py [--src SRC ...] [--api] [--no-ptxas] [--imports N] [--json OUT.json] \
        FILE.tileirbc ...

For each ``--src`` (a ``src`` directory, default this checkout's; byte-compiled first, as ``pip install`` leaves an
installed package) and each bytecode file (e.g. ``tools/ptx_identity.py save``'s ``DIR/bytecode/softmax_f16.tileirbc``):
one child ``python -c`` under ``valgrind --tool=callgrind --trace-children=yes`` (``PYTHONHASHSEED=0``, cache off)
that imports tileorch and compiles the file as ``tileorch compile FILE -o OUT.ptx --timings`` does (the command's
:func:`tileorch.cli.main.program`: code generation in a forked child, the final verification meanwhile, ptxas in its
own child, ``os._exit`` at the end; ``benchmarks/compile_time.py``'s cold compile), or with ``--api`` as
``tileorch.compile(data, cache=False, isolate=False)`` (all in process, the interpreter's teardown at the end).
Phase boundaries are callgrind dumps (``CALLGRIND_DUMP_STATS_AT``, from a helper library built here with ``gcc`` and
valgrind's ``callgrind.h``): every :mod:`tileorch.timing` phase's start and end is one, so the report gives the
instructions of ``start`` (the interpreter up to the script, ``ctypes`` included), ``import tileorch``, ``read``
and every phase/pass of the compile's timing report (``parse``, ``tile-program/convert-cudatile-to-tileaa``, each
pass of the SIMT lowering, ``lower/...``, ``translate``, ``codegen``...), ``exit`` (what follows the compile) and
each child process (``child (forked: codegen)``: LLVM's code generation, ``child ptxas``).  A phase's count
includes the modules first imported in it; ``--imports N`` also prints each module's own import instructions (its
execution less the modules it imported meanwhile, a dump at each module's start and end: the totals by package
and the N largest).  ``python -c pass`` under callgrind is printed as ``bare interpreter``.
Instruction counts, not time: stable on a loaded shared machine (one child takes 2-4 minutes under valgrind there).
Millions of instructions are printed; ``--json`` writes the counts.
"""

from __future__ import annotations

import argparse
import compileall
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_HELPER_C = r"""
#include <valgrind/callgrind.h>
void tick(const char *name) { CALLGRIND_DUMP_STATS_AT(name); }
"""

_CHILD = r"""
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
seq = [0]
def tick(label=""):
    seq[0] += 1
    lib.tick(("t%d %s" % (seq[0], label)).encode())
    return seq[0]
import _frozen_importlib_external as _ext
_exec = _ext._LoaderBasics.exec_module
modules = []
def _exec_module(self, module):  # every Python module's execution between two dumps (its import's own work)
    s0 = tick()
    try:
        return _exec(self, module)
    finally:
        modules.append((module.__name__, s0, tick()))
_ext._LoaderBasics.exec_module = _exec_module
MARKS = {"start": tick("start")}
import tileorch
MARKS["import"] = tick("import")
from tileorch import timing
import types
events = []
timing.time = types.SimpleNamespace(perf_counter=tick)
orig_exit = timing._Phase.__exit__
def exit_(self, *exc):
    s0 = self.t0
    out = orig_exit(self, *exc)
    events.append((self.path, s0, seq[0]))
    return out
timing._Phase.__exit__ = exit_
EVENTS = sys.argv[4]
def done():
    s = tick("compiled")
    import json
    with open(EVENTS, "w") as f:
        json.dump({"events": events, "compiled": s, "modules": modules, "marks": MARKS}, f)
if sys.argv[5] == "cli":  # as `tileorch compile FILE -o OUT.ptx --timings` (os._exit after the atexit handlers)
    import atexit
    atexit.register(done)
    MARKS["read"] = tick("read")
    from tileorch.cli.main import program
    assemble = sys.argv[3] == "1"
    sys.argv = ["tileorch", "compile", sys.argv[2], "-o", EVENTS + ".ptx", "--timings"]
    if not assemble:
        sys.argv.append("--no-ptxas")
    program()
else:
    data = open(sys.argv[2], "rb").read()
    MARKS["read"] = tick("read")
    k = tileorch.compile(data, None, cache=False, ptxas=sys.argv[3] == "1", isolate=False)
    done()
"""


def helper_library(tmp: str) -> str:
    c, so = os.path.join(tmp, "tick.c"), os.path.join(tmp, "tick.so")
    Path(c).write_text(_HELPER_C)
    subprocess.run(["gcc", "-O1", "-shared", "-fPIC", "-o", so, c], check=True)
    return so


def _dumps(tmp: str, pid: int) -> tuple[dict[int, int], int]:
    """seq -> instructions of the dump that seq triggered (counted since the previous dump); and the final part."""
    by_seq, final = {}, 0
    for path in glob.glob(os.path.join(tmp, f"cg.{pid}*")):
        text = Path(path).read_text(errors="replace")
        m = re.search(r"^(?:totals|summary): (\d+)", text, re.M)
        n = int(m.group(1)) if m else 0
        t = re.search(r"^desc: Trigger: Client Request: t(\d+)", text, re.M)
        if t:
            by_seq[int(t.group(1))] = n
        else:
            final = n
    return by_seq, final


def measure(src: str, bytecode: str, ptxas: bool, lib: str, tmp: str,
            mode: str) -> tuple[dict[str, float], dict[str, float]]:
    """(instructions per phase and child process, own instructions per imported module) of one child."""
    env = {**os.environ, "PYTHONPATH": src, "TILEORCH_CACHE": "0", "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    for f in glob.glob(os.path.join(tmp, "cg.*")):
        os.unlink(f)
    ev = os.path.join(tmp, "events.json")
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--trace-children=yes", "--dump-line=no",
                           f"--callgrind-out-file={tmp}/cg.%p", sys.executable, "-c", _CHILD, lib, bytecode,
                           "1" if ptxas else "0", ev, mode], capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{bytecode} ({src}) failed:\n{proc.stderr[-3000:]}")
    pids = sorted({int(m.group(1)) for f in glob.glob(os.path.join(tmp, "cg.*"))
                   if (m := re.match(r"cg\.(\d+)", os.path.basename(f)))})
    main_pid = next(p for p in pids if any(re.search(r"^desc: Trigger: Client Request: t1 ", Path(f).read_text(
        errors="replace"), re.M) for f in glob.glob(os.path.join(tmp, f"cg.{p}.*"))))
    by_seq, final = _dumps(tmp, main_pid)
    cum = [0]
    for s in range(1, max(by_seq) + 1):
        cum.append(cum[-1] + by_seq.get(s, 0))

    def between(a: int, b: int) -> int:
        return cum[b] - cum[a]

    record = json.loads(Path(ev).read_text())
    start, imported, read = (record["marks"][k] for k in ("start", "import", "read"))
    out: dict[str, float] = {"start": cum[start], "import tileorch": between(start, imported),
                             "read": between(imported, read)}
    total_compile = between(read, record["compiled"])
    out["compile"] = total_compile
    for path, s0, s1 in record["events"]:
        out["compile/" + path] = out.get("compile/" + path, 0) + cum[s1] - cum[s0]
    out["exit"] = final
    children = 0
    for p in pids:
        if p != main_pid:
            seqs, rest = _dumps(tmp, p)
            n = sum(seqs.values()) + rest
            cmd = re.search(r"^cmd: +(\S+)", Path(os.path.join(tmp, f"cg.{p}")).read_text(errors="replace"), re.M)
            what = "child " + (os.path.basename(cmd.group(1)) if cmd else "?")
            if what.startswith("child python"):
                what = "child (forked: codegen)"
            out[what] = out.get(what, 0) + n
            children += n
    out["total"] = cum[-1] + final + children
    # each module's own instructions: its execution less the modules it imported meanwhile
    spans = sorted(record["modules"], key=lambda m: (m[1], -m[2]))
    own = {name: between(a, b) for name, a, b in spans}
    stack: list[tuple[str, int, int]] = []
    for name, a, b in spans:
        while stack and stack[-1][2] < a:
            stack.pop()
        if stack:
            own[stack[-1][0]] -= between(a, b)
        stack.append((name, a, b))
    return out, own


def bare(tmp: str) -> int:
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c",
                           "pass"], capture_output=True, text=True, check=False)
    return int(re.search(r"Collected : (\d+)", proc.stderr).group(1))


def import_groups(own: dict[str, float]) -> dict[str, float]:
    """Own import instructions summed by who defines the module."""
    groups: dict[str, float] = {}
    for name, n in own.items():
        if name.startswith("xdsl.dialects"):
            key = "xDSL dialects"
        elif name.startswith("xdsl"):
            key = "xDSL core"
        elif name.startswith("tileorch.dialects"):
            key = "tileorch dialects"
        elif name.startswith("tileorch"):
            key = "tileorch other"
        elif name.startswith("llvmlite"):
            key = "llvmlite"
        else:
            key = "stdlib and other"
        groups[key] = groups.get(key, 0) + n
    return dict(sorted(groups.items(), key=lambda kv: -kv[1]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", nargs="*", default=[str(ROOT / "src")])
    ap.add_argument("--no-ptxas", action="store_true")
    ap.add_argument("--api", action="store_true", help="tileorch.compile(data, cache=False, isolate=False) in process "
                    "instead of the command `tileorch compile FILE -o OUT.ptx --timings` (the default)")
    ap.add_argument("--imports", type=int, default=0, metavar="N",
                    help="also print the N modules whose import costs the most own instructions (and the totals by "
                         "package); the phases above include them where they were first imported")
    ap.add_argument("--json", default=None, help="write the counts here")
    ap.add_argument("files", nargs="+")
    args = ap.parse_args(argv)
    for src in args.src:
        compileall.compile_dir(os.path.join(src, "tileorch"), quiet=1)
    results: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        lib = helper_library(tmp)
        print(f"bare interpreter (python -c pass): {bare(tmp) / 1e6:.1f} M instructions", flush=True)
        for f in args.files:
            name = Path(f).stem
            for src in args.src:
                phases, own = measure(src, f, not args.no_ptxas, lib, tmp, "api" if args.api else "cli")
                results.setdefault(name, {})[src] = {"phases": phases, "imports": own}
            mine = results[name]
            keys = list(dict.fromkeys(k for r in mine.values() for k in r["phases"]))
            print(f"\n{name}: M instructions" + "".join(f"{Path(s).parent.name[-18:]:>20}" for s in args.src))
            for key in keys:
                print(f"  {key:<70}" + "".join(f"{mine[s]['phases'].get(key, 0) / 1e6:20.1f}" for s in args.src),
                      flush=True)
            if args.imports:
                groups = {s: import_groups(mine[s]["imports"]) for s in args.src}
                print(f"  own import instructions ({len(mine[args.src[0]]['imports'])} modules), by package:")
                for key in dict.fromkeys(k for g in groups.values() for k in g):
                    print(f"    {key:<68}" + "".join(f"{groups[s].get(key, 0) / 1e6:20.1f}" for s in args.src))
                first = mine[args.src[0]]["imports"]
                print(f"  the {args.imports} modules with the most own import instructions:")
                for mod in sorted(first, key=lambda m: -first[m])[:args.imports]:
                    print(f"    {mod:<68}" + "".join(f"{mine[s]['imports'].get(mod, 0) / 1e6:20.1f}"
                                                     for s in args.src))
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
