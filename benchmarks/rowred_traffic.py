"""What a wide-row SIMT kernel does per element, counted by the PTX emulator (no GPU): global bytes
read and written, shared-memory bytes, barrier arrivals and thread-instructions, per element of the
row input, beside a check of the outputs against numpy (NaN-prefilled, ragged widths).

    PYTHONPATH=src python benchmarks/rowred_traffic.py [--rows 2] [--json out.json] [--only TEXT]

Each case is a program of ``tileorch.testing`` at a ragged width, compiled with the default options
(``compile_program``) and run CTA by CTA by ``tileorch.testing.ptx_emulator`` through the sweep
tests' harness (``tests/unit/test_user_sweep10_emulated.emulate``).  The counts are the inputs of a
cost model, not a speed: an A/B of an environment switch runs the script twice (the switch set).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests" / "unit")]


def _cases(rows: int):
    """name -> (kernel, spec, grid, inputs, check(outputs) -> max error, index of the row input)."""
    from tileorch.testing import user_programs3 as u3, user_programs10 as u10, user_programs15 as u15

    rng = np.random.default_rng(0)
    bf16r = lambda a: (np.asarray(a, np.float32).view(np.uint32) & 0xFFFF0000).view(np.float32)  # noqa: E731
    cases = {}

    v = 4100  # 5 tiles of 1024, the last ragged
    logits = bf16r(rng.standard_normal((rows, v)) * 3)
    labels = rng.integers(0, v, rows).astype(np.int64)
    labels[::2] = -100
    lse = np.log(np.exp(logits.astype(np.float64)).sum(1))

    def ce_check(out):
        keep = labels != -100
        loss = (lse[keep] - logits[np.nonzero(keep)[0], labels[keep]]).sum()
        assert out[4][0] == keep.sum(), out[4]
        return max(np.abs(out[2] - lse).max(), abs(out[3][0] - loss))

    cases["cross_entropy_fwd_mean_atomic_v4100"] = (
        u15.cross_entropy_fwd_mean_atomic,
        [((rows, v), "bfloat16"), ((rows,), "int64"), ((rows,), "float32"), ((1,), "float32"), ((1,), "int32"),
         -100, 1024], (rows,), {0: logits, 1: labels, 3: np.zeros(1, np.float32), 4: np.zeros(1, np.int32)},
        ce_check)
    # the benchmark's rows (benchmarks/memory_bound.py cross_entropy_bf16_v32000 / _v4096): 16-byte aligned,
    # whole tiles (32000: 31 and a ragged one; 4096: four)
    for width in (32000, 4096):
        cases[f"cross_entropy_fwd_mean_atomic_v{width}"] = _benchmark_ce_case(rng, rows, width, bf16r)

    # the cross entropy forward + backward (sweep 10; memory_bound.py's probe_ce_fwd_bwd_*): the row's online lse,
    # then a second loop writing the bf16 gradient (the row kept in shared memory by default)
    vb = 8192
    fb_logits = bf16r(rng.standard_normal((rows, vb)) * 3)
    fb_labels = rng.integers(0, vb, rows).astype(np.int64)
    fb_labels[::2] = -100

    def fwd_bwd_check(out):
        xd = fb_logits.astype(np.float64)
        row_lse = np.log(np.exp(xd).sum(1))
        keep = fb_labels != -100
        loss = np.where(keep, row_lse - xd[np.arange(rows), np.where(keep, fb_labels, 0)], 0.0)
        grad = np.exp(xd - row_lse[:, None])
        grad[np.arange(rows)[keep], fb_labels[keep]] -= 1.0
        grad *= 0.5 * keep[:, None]
        return max(np.abs(out[2] - loss).max(), np.abs(out[3] - grad).max())

    cases[f"cross_entropy_fwd_bwd_vocab_bf16_v{vb}"] = (
        u10.cross_entropy_fwd_bwd_vocab,
        [((rows, vb), "bfloat16"), ((rows,), "int64"), ((rows,), "float32"), ((rows, vb), "bfloat16"), -100, 0.5,
         1024], (rows,), {0: fb_logits, 1: fb_labels}, fwd_bwd_check)

    v = 4104  # 16-byte aligned rows of f32 and bf16 (vector loads), the last tile ragged (8 of 1024)
    x = rng.standard_normal((rows, v)).astype(np.float32)
    x_lse = np.log(np.exp(x.astype(np.float64)).sum(1))
    cases["logsumexp_online_f32_v4104"] = (
        u3.logsumexp_online, [((rows, v), "float32"), ((rows,), "float32"), 1024], (rows,), {0: x},
        lambda out: np.abs(out[1] - x_lse).max())

    xw = rng.standard_normal((rows, 32000)).astype(np.float32)
    xw_lse = np.log(np.exp(xw.astype(np.float64)).sum(1))
    cases["logsumexp_online_f32_v32000"] = (
        u3.logsumexp_online, [((rows, 32000), "float32"), ((rows,), "float32"), 1024], (rows,), {0: xw},
        lambda out: np.abs(out[1] - xw_lse).max())

    xb = bf16r(x)
    xb_lse = np.log(np.exp(xb.astype(np.float64)).sum(1))
    cases["log_softmax_vocab_loop_bf16_v4104"] = (
        u10.log_softmax_vocab_loop, [((rows, v), "bfloat16"), ((rows, v), "bfloat16"), 1024], (rows,), {0: xb},
        lambda out: np.abs(out[1] - (xb - xb_lse[:, None])).max())
    xwb = bf16r(xw)
    xwb_lse = np.log(np.exp(xwb.astype(np.float64)).sum(1))
    cases["log_softmax_vocab_loop_bf16_v32000"] = (
        u10.log_softmax_vocab_loop, [((rows, 32000), "bfloat16"), ((rows, 32000), "bfloat16"), 1024], (rows,),
        {0: xwb}, lambda out: np.abs(out[1] - (xwb - xwb_lse[:, None])).max())
    return cases


def _benchmark_ce_case(rng, rows: int, width: int, bf16r):
    """A cross entropy case of :func:`_cases` over bf16 rows of ``width`` (scale 3) with no ignored label."""
    from tileorch.testing import user_programs15 as u15

    logits = bf16r(rng.standard_normal((rows, width)) * 3)
    labels = rng.integers(0, width, rows).astype(np.int64)
    lse = np.log(np.exp(logits.astype(np.float64)).sum(1))

    def check(out):
        loss = (lse - logits[np.arange(rows), labels]).sum()
        assert out[4][0] == rows, out[4]
        return max(np.abs(out[2] - lse).max(), abs(out[3][0] - loss))

    spec = [((rows, width), "bfloat16"), ((rows,), "int64"), ((rows,), "float32"), ((1,), "float32"),
            ((1,), "int32"), -100, 1024]
    return (u15.cross_entropy_fwd_mean_atomic, spec, (rows,),
            {0: logits, 1: labels, 3: np.zeros(1, np.float32), 4: np.zeros(1, np.int32)}, check)


def measure(rows: int, only: str = "") -> dict:
    """name -> the counts per element of the row input and the check's max error (the cases whose
    name holds ``only``)."""
    import test_user_sweep10_emulated as s10e

    from tileorch.testing import ptx_emulator
    from tileorch.testing.user_programs import UserProgram

    made = []

    class Counted(ptx_emulator.Emu):
        count_instructions = True

        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            made.append(self)

    results = {}
    for name, (kernel, spec, grid, inputs, check) in _cases(rows).items():
        if only not in name:
            continue
        s10e.PROGRAMS = {name: UserProgram(kernel, spec, grid, "simt")}
        made.clear()
        real, ptx_emulator.Emu = ptx_emulator.Emu, Counted
        try:
            out = s10e.emulate(name, inputs)
        finally:
            ptx_emulator.Emu = real
        total = sum((emu.traffic for emu in made), start=__import__("collections").Counter())
        n = int(np.prod(spec[0][0]))
        results[name] = {
            "elements": n,
            "global_read_bytes_per_element": sum(b for k, b in total.items() if k.startswith("load:arg")) / n,
            "row_input_read_bytes_per_element": total["load:arg0"] / n,
            "global_written_bytes_per_element": sum(b for k, b in total.items() if k.startswith("store:arg")) / n,
            "shared_bytes_per_element": total["shared"] / n,
            "barrier_arrivals_per_element": total["bar"] / n,
            "thread_instructions_per_element": total["instructions"] / n,
            "max_error": float(check(out)),
        }
    return results


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=2)
    ap.add_argument("--json")
    ap.add_argument("--only", default="", help="the cases whose name holds this text")
    args = ap.parse_args()
    results = measure(args.rows, args.only)
    for name, r in results.items():
        print(f"{name}: read {r['global_read_bytes_per_element']:.3f} B/elt (row input "
              f"{r['row_input_read_bytes_per_element']:.3f}), written {r['global_written_bytes_per_element']:.3f}, "
              f"shared {r['shared_bytes_per_element']:.2f} B/elt, barrier arrivals "
              f"{r['barrier_arrivals_per_element']:.3f}/elt, thread-instructions "
              f"{r['thread_instructions_per_element']:.2f}/elt, max error {r['max_error']:.2e}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
