"""Parse / verify / print throughput of the cutlass dialect on a generated module.

Usage: python benchmarks/dialect_throughput.py [--ops 20000]

The module repeats a pipeline handshake block (state create/increment/getters, producer
acquire/commit, consumer wait/release) inside one function until it holds about --ops ops.
Prints ops/s for each stage; the ratio line compares parse to print in the same process.
"""

from __future__ import annotations

import argparse
import io
import time

from xdsl.printer import Printer

from tileorch.diagnostics import parse_module, verify_located
from tileorch.registry import make_context

BLOCK = """\
    %s{i} = cutlass.pipeline.state.create %ready producer
    cutlass.pipeline.producer_acquire %ready, %s{i}
    cutlass.pipeline.producer_commit %ready, %s{i} {{transaction_bytes = 4096 : i32}}
    %n{i} = cutlass.pipeline.state.increment %s{i}
    %x{i} = cutlass.pipeline.state.get_index %n{i}
    %c{i} = cutlass.pipeline.state.create %ready consumer
    cutlass.pipeline.consumer_wait %ready, %c{i}
    cutlass.pipeline.consumer_release %ready, %c{i}
    %ph{i} = cutlass.pipeline.state.get_phase %c{i}
    %k{i} = cutlass.pipeline.state.get_count %c{i}
"""
OPS_PER_BLOCK = 10


def make_module_text(n_ops: int) -> str:
    blocks = "".join(BLOCK.format(i=i) for i in range(max(1, n_ops // OPS_PER_BLOCK)))
    return (
        "builtin.module {\n  func.func @f() {\n"
        "    %pipe = cutlass.pipeline.create : !cutlass.pipeline<stages = 4, producers = 1, consumers = 1>\n"
        "    %ready = cutlass.pipeline.init %pipe {numStages = 4 : i32, "
        "executor = #cutlass<executor_type warp>, participants = array<i64: 1>, "
        "consumers = array<i64: 2>}\n"
        f"{blocks}    func.return\n  }}\n}}\n"
    )


def timed(fn):
    start = time.perf_counter()
    result = fn()
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--ops", type=int, default=20000)
    args = parser.parse_args()
    ctx = make_context()
    text = make_module_text(args.ops)
    module, t_parse = timed(lambda: parse_module(ctx, text, "bench.mlir"))
    n = sum(1 for _ in module.walk())
    errors, t_verify = timed(lambda: verify_located(module))
    assert not errors, errors[:3]
    _, t_xverify = timed(module.verify)

    def print_it(generic: bool) -> str:
        out = io.StringIO()
        Printer(stream=out, print_generic_format=generic).print_op(module)
        return out.getvalue()

    custom, t_print = timed(lambda: print_it(False))
    generic, t_gprint = timed(lambda: print_it(True))
    reparsed, t_gparse = timed(lambda: parse_module(ctx, generic, "bench-generic.mlir"))
    assert sum(1 for _ in reparsed.walk()) == n
    print(f"module: {n} ops, {len(text) / 1e6:.2f} MB custom text")
    for label, t in [("parse (custom, located)", t_parse), ("verify (located, per op)", t_verify),
                     ("verify (xDSL module.verify)", t_xverify), ("print (custom)", t_print),
                     ("print (generic)", t_gprint), ("parse (generic)", t_gparse)]:
        print(f"{label:30s} {t:7.2f} s  {n / t:9.0f} ops/s")
    print(f"ratio parse/print (custom): {t_parse / t_print:.2f}")


if __name__ == "__main__":
    main()
