#!/usr/bin/env python3
"""Seeded fuzzer over every front door (tileorch compile, tileorch-opt -p, bytecode, tileorch gemm,
the Python API): ``python tools/fuzz_inputs.py --seed N --cases K [--jobs J] [--out DIR]``.

Prints the outcome classes per door (located / unlocated / traceback / timeout / crash / accepted)
and each finding; exit status 1 if there is one.  See ``src/tileorch/tools/fuzz_inputs.py``.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from tileorch.tools.fuzz_inputs import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
