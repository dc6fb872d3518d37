"""CPU time of ``verify_located`` on a function of N blocks (each block a constant and a branch
to the next): linear in the blocks since s9-launch (xDSL's ``Operation.verify`` counts a region's
blocks at each terminator, which ``tileorch.diagnostics`` no longer calls for those ops).

Usage::

    python benchmarks/verify_blocks.py [N ...]    # default 250 1000 4000
"""

import sys
import time

from tileorch.backend.compile import parse_text
from tileorch.diagnostics import verify_located
from tileorch.registry import make_context


def main(argv: list[str]) -> int:
    for n in [int(a) for a in argv] or [250, 1000, 4000]:
        body = "\n".join(f"  ^bb{i}:\n    %c{i} = arith.constant {i} : i32\n    cf.br ^bb{i + 1}" for i in range(1, n))
        text = f"func.func @f() {{\n  cf.br ^bb1\n{body}\n  ^bb{n}:\n    func.return\n}}\n"
        module = parse_text(make_context(), text, "blocks.mlir")
        t = time.process_time()
        errors = verify_located(module)
        print(f"{n:5d} blocks: verify_located {(time.process_time() - t) * 1e3:8.1f} ms CPU, {len(errors)} errors")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
