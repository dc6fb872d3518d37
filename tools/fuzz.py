#!/usr/bin/env python3
"""Long fuzz campaign (run outside CI): ``python tools/fuzz.py [--inputs N] [--seconds S] [--jobs J]``.

Mutates the examples and test inputs and runs every mutant through ``tileorch-opt``,
``tileorch compile`` (to PTX, checked by ptxas) and ``tileorch check`` in forked children;
prints how many inputs it tried, how many reached PTX, and each finding (a traceback, an
internal error, an unlocated diagnostic, a signal such as an LLVM abort, or a hang), saved
under ``--out`` (default fuzz-findings/) for ``--replay``.  Exit status 1 if anything was found.
See ``src/tileorch/tools/fuzz.py`` for the mutations and the property.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tileorch.tools.fuzz import main  # noqa: E402

if __name__ == "__main__":
    argv = sys.argv[1:]
    if not any(a.startswith("--inputs") for a in argv):
        argv = ["--inputs", "20000", *argv]
    if not any(a.startswith("--out") for a in argv):
        argv = ["--out", "fuzz-findings", *argv]
    sys.exit(main(argv))
