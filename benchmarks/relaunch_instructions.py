"""Instructions of a cached relaunch in a fresh process, counted by callgrind (issue 22 item 2).

Usage::

    python benchmarks/relaunch_instructions.py [--src SRC] [--program examples/gemm_sm90.mlir]

Three child processes under ``valgrind --tool=callgrind`` (whole process, interpreter start-up
and exit included; deterministic where wall times on a shared 2-core host are not):

* ``pass``: ``python -c pass``;
* ``import``: ``import tileorch``;
* ``relaunch``: ``import tileorch; tileorch.compile(PROGRAM, None, isolate=True)`` answered by
  the on-disk cache (``benchmarks/compile_time.py``'s relaunch; the cache is filled first in a
  temporary ``TILEORCH_CACHE_DIR``, or the one set; tileorch's sources byte-compiled first).

Printed: each child's instructions (millions), ``relaunch - pass`` (what tileorch adds to a bare
interpreter), and the modules the relaunch imports beyond ``python -c pass``.  ``--src``: the
``src`` directory of the tileorch to measure (default: this checkout's), for a before/after.
Needs valgrind.
"""

from __future__ import annotations

import argparse
import compileall
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RELAUNCH = "import tileorch; k = tileorch.compile({path!r}, None, isolate=True); assert k.from_cache"
MODULES = ("import sys; base = set(sys.modules); " + RELAUNCH
           + "; print(' '.join(sorted(set(sys.modules) - base)))")


def instructions(code: str, env: dict[str, str]) -> int:
    """Instructions of ``python -c code`` under callgrind (the whole process)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", code],
                       env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return sum(int(m) for f in Path(tmp).glob("callgrind.out*")
                   for m in re.findall(r"^totals:\s+(\d+)", f.read_text(), re.M))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", default=str(ROOT / "src"))
    parser.add_argument("--program", default=str(ROOT / "examples" / "gemm_sm90.mlir"))
    args = parser.parse_args(argv)
    # byte-compiled first, as an installed package is (compile_time.py does the same)
    compileall.compile_dir(os.path.join(args.src, "tileorch"), quiet=1)
    with tempfile.TemporaryDirectory(prefix="tileorch-relaunch-") as cache:
        env = dict(os.environ, PYTHONPATH=os.path.abspath(args.src), PYTHONHASHSEED="0")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env.setdefault("TILEORCH_CACHE_DIR", cache)
        env.pop("TILEORCH_CACHE", None)
        path = os.path.abspath(args.program)
        subprocess.run([sys.executable, "-c", f"import tileorch; tileorch.compile({path!r}, None, isolate=True)"],
                       env=env, check=True)  # fills the cache (and the fingerprint / ptxas memos)
        subprocess.run([sys.executable, "-c", RELAUNCH.format(path=path)], env=env, check=True)  # (.pyc written)
        counts = {name: instructions(code, env) for name, code in
                  (("pass", "pass"), ("import", "import tileorch"), ("relaunch", RELAUNCH.format(path=path)))}
        modules = subprocess.run([sys.executable, "-c", MODULES.format(path=path)], env=env, check=True,
                                 capture_output=True, text=True).stdout.split()
    for name, n in counts.items():
        print(f"{name:9s} {n / 1e6:8.2f} M instructions")
    print(f"relaunch - pass: {(counts['relaunch'] - counts['pass']) / 1e6:.2f} M instructions "
          f"(import - pass {(counts['import'] - counts['pass']) / 1e6:.2f} M)")
    print(f"modules the relaunch imports ({len(modules)}): {' '.join(modules)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
