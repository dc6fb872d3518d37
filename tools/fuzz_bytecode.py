#!/usr/bin/env python3
"""Long bytecode fuzz campaign (run outside CI): ``python tools/fuzz_bytecode.py [--inputs N] [--jobs J] [--seed S]``.

Corrupts real cuTile programs (``tests/unit/cutile_bytecode``) and writer-produced bytecode
(byte flips, truncations, section lengths, indices, opcodes, tables of another program) and runs
each mutant through the bytecode reader and the compile front end (``lower_program``),
``tileorch-opt`` or ``tileorch compile`` in a forked child; prints the counts and each finding
(a traceback, an internal error, an unlocated diagnostic, a signal or a hang), saved under
``--out`` (default fuzz-findings-bytecode/) for ``--replay``.  Exit status 1 if anything was found.
See ``src/tileorch/tools/fuzz_bytecode.py`` for the mutations and the property.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tileorch.tools.fuzz_bytecode import main  # noqa: E402

if __name__ == "__main__":
    argv = sys.argv[1:]
    if not any(a.startswith("--inputs") for a in argv):
        argv = ["--inputs", "20000", *argv]
    if not any(a.startswith("--out") for a in argv) and "--replay" not in argv:
        argv = ["--out", "fuzz-findings-bytecode", *argv]
    sys.exit(main(argv))
