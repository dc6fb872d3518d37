#!/usr/bin/env python3
"""The in-process token-level fuzzer: see src/tileorch/tools/fuzz_inprocess.py and docs/fuzzing.md.

    python tools/fuzz_inprocess.py --inputs 5000 --seed 1 --out /tmp/fip
    python tools/fuzz_inprocess.py --replay /tmp/fip/finding0001.opt.mlir
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "src"))

from tileorch.tools.fuzz_inprocess import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
