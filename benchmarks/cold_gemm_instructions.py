"""Instructions of a cold GEMM compile in a fresh process, counted by callgrind (issue 22: the compile's imports).

Usage::

    python benchmarks/cold_gemm_instructions.py [--src SRC ...] [--bytecode DIR]

Per ``--src`` (the ``src`` directory of a tileorch, default this checkout's; byte-compiled first, as ``pip install``
leaves an installed package: these machines set ``PYTHONDONTWRITEBYTECODE``), whole child processes under
``valgrind --tool=callgrind`` (interpreter start-up and exit included; ``PYTHONHASHSEED=0``; cache off; the
dataclass code kept as :func:`tileorch.dataclass_code.reading` keeps it):

* ``tier-import``: ``tileorch gemm --compile``'s imports: the driver, then the TileAS tier's modules;
* ``gemm-llvm``: the 4096^3 bf16 GEMM's tile program through the tier and the backend to LLVM IR (in process);
* ``<name>``: for each ``<name>.tileirbc`` of ``--bytecode`` (e.g. ``tools/ptx_identity.py save``'s ``DIR/bytecode``):
  ``tileorch.compile`` of it to PTX in process (no ptxas).

Printed: millions of instructions per child and source.  Needs valgrind.
"""

from __future__ import annotations

import argparse
import compileall
import glob
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_CHILD = r"""
import sys
from tileorch.dataclass_code import reading
with reading():
    from tileorch.driver import compile_module
    from tileorch.launchers.gemm import default_config
    from tileorch.launchers.gemm_program import lower_gemm
    if sys.argv[1] == "tier-import":
        from tileorch.backend.pipeline import apply_pass
        from tileorch.registry import make_context
        from tileorch.transforms.tileas.nv_tileas_to_cutlass import ConvertNvTileasToCutlass
        from tileorch.transforms.tileas.tier import TileASTier
        TileASTier().steps()
    elif sys.argv[1] == "gemm-llvm":
        module = lower_gemm(default_config(4096, 4096, 4096, "bf16", "bf16", "k", "auto", 132))
        compile_module(module, ptxas=False, kind="gemm", emit="llvm")
    else:
        import tileorch
        tileorch.compile(open(sys.argv[1], "rb").read(), None, cache=False, ptxas=False, isolate=False)
"""


def instructions(src: str, what: str) -> int:
    env = {**os.environ, "PYTHONPATH": src, "TILEORCH_CACHE": "0", "PYTHONHASHSEED": "0"}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, "-c",
                           _CHILD, what], capture_output=True, text=True, env=env, check=False)
    m = re.search(r"Collected : (\d+)", proc.stderr)
    if proc.returncode != 0 or m is None:
        raise SystemExit(f"{what} ({src}) failed:\n{proc.stderr[-2000:]}")
    return int(m.group(1))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--src", nargs="*", default=[str(ROOT / "src")])
    ap.add_argument("--bytecode", default=None, help="a directory of .tileirbc files to compile too")
    args = ap.parse_args(argv)
    whats = ["tier-import", "gemm-llvm"] + sorted(glob.glob(os.path.join(args.bytecode, "*.tileirbc"))
                                                    if args.bytecode else [])
    for src in args.src:
        compileall.compile_dir(os.path.join(src, "tileorch"), quiet=1)
    print(f"{'M instructions':<40}" + "".join(f"{Path(s).parent.name[-18:]:>20}" for s in args.src))
    for what in whats:
        print(f"{Path(what).stem:<40}" + "".join(f"{instructions(s, what) / 1e6:20.1f}" for s in args.src), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
