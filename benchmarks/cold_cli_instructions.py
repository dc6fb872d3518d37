"""Instructions of the cold ``tileorch`` command lines of issue 22, per process, counted by callgrind (a number the
machine's load does not change, where CPU seconds on the shared 2-core host do).

Usage::

    python benchmarks/cold_cli_instructions.py [--tree SRC ...] [--only gemm|compile|opt-help] [--out J.json]

Per ``--tree`` (the ``src`` directory of a tileorch, default this checkout's; byte-compiled first, as ``pip
install`` leaves a package: these machines set ``PYTHONDONTWRITEBYTECODE``) and command, one run under
``valgrind --tool=callgrind`` (``PYTHONHASHSEED=0``, ``TILEORCH_CACHE=0``; forked children are counted apart,
ptxas is not traced):

* ``gemm``: ``python -m tileorch gemm 4096 4096 4096 --compile``;
* ``compile``: ``python -m tileorch compile examples/gemm_sm90.mlir -o OUT.cubin``;
* ``opt-help``: ``tileorch-opt --help`` (``tileorch.tools.opt.main``).

Printed: millions of instructions of the parent (``self``) and of the forked code generation child (``child``);
the cubins of the trees are compared.  Needs valgrind; ~1 minute per tree and command on the 2-core machine.
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
COMMANDS = {
    "gemm": ["-m", "tileorch", "gemm", "4096", "4096", "4096", "--compile"],
    "compile": ["-m", "tileorch", "compile", str(ROOT / "examples" / "gemm_sm90.mlir"), "-o", "{out}"],
    "opt-help": ["-c", "import sys; sys.argv = ['tileorch-opt', '--help']; from tileorch.tools.opt import main; main()"],
}


def count(tree: str, name: str, work: str) -> dict:
    out = os.path.join(work, "out.cubin")
    args = [a.replace("{out}", out) for a in COMMANDS[name]]
    env = dict(os.environ, PYTHONPATH=tree, PYTHONHASHSEED="0", TILEORCH_CACHE="0")
    prefix = os.path.join(work, f"cg.{name}")
    for old in glob.glob(prefix + ".*"):
        os.remove(old)
    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={prefix}.%p", sys.executable, *args],
                          capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{name} with {tree} failed:\n{proc.stderr[-2000:]}")
    counts = {}
    for path in glob.glob(prefix + ".*"):
        with open(path) as fh:
            text = fh.read()
        pid = int(path.rsplit(".", 1)[1])
        counts[pid] = int(re.search(r"^summary: (\d+)", text, re.M).group(1))
    pids = sorted(counts)  # the parent started first: the lowest pid (no wrap-around within one run)
    record = {"self": counts[pids[0]] / 1e6, "child": sum(counts[p] for p in pids[1:]) / 1e6}
    if os.path.exists(out):
        with open(out, "rb") as fh:
            record["cubin"] = fh.read().hex()
        os.remove(out)
    return record


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", default=None)
    ap.add_argument("--only", action="append", choices=sorted(COMMANDS), default=None)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    trees = args.tree or [str(ROOT / "src")]
    for tree in trees:
        compileall.compile_dir(tree, quiet=1)
    results: dict[str, dict[str, dict]] = {}
    with tempfile.TemporaryDirectory() as work:
        for name in args.only or list(COMMANDS):
            for tree in trees:
                r = count(tree, name, work)
                results.setdefault(name, {})[tree] = r
                print(f"{name:9s} {tree}: self {r['self']:.1f}M, child {r['child']:.1f}M instructions", flush=True)
            cubins = {r.get("cubin") for r in results[name].values()}
            if len(trees) > 1 and len(cubins) > 1:
                print(f"{name}: the cubins of the trees differ")
    for per_tree in results.values():
        for r in per_tree.values():
            r.pop("cubin", None)
    if args.out:
        Path(args.out).write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
