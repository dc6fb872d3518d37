"""cuTile kernels (elementwise, softmax, layernorm, reductions, transpose, argmax, scan, integer
math, GEMM with a fused epilogue, batched bf16 GEMM) compiled by tileorch and run on the GPU
against torch (fp32 reference), timed against torch and, where cuTile's own tileiras is
available, against cuTile.

    python benchmarks/cutile_kernels.py build        # CPU: export bytecode, tileorch -> cubins
    python benchmarks/cutile_kernels.py run [--out D] # GPU: correctness + timing, JSON

``build`` writes ``build/cutile_kernels/<case>.{tileirbc,cubin,json}``; ``run`` needs only
torch, cuda-python and cuda.tile (for the comparison), not xDSL.  Kernel arguments follow
cuTile's calling convention (``cutile_python_v1``): per array its pointer, shape and strides
(int32, in elements); constants take no parameter.  Outputs are pre-filled with NaN (or a
sentinel for integers) and compared with torch fp32 math.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "benchmarks"))

BUILD = ROOT / "build" / "cutile_kernels"


def _ct_dtype(name: str):
    import cuda.tile as ct

    return {"f16": ct.float16, "bf16": ct.bfloat16, "f32": ct.float32, "i32": ct.int32}[name]


def build(names: list[str] | None) -> int:
    from cuda.tile.compilation import ArrayConstraint, CallingConvention, KernelSignature, export_kernel

    from cutile_kernel_zoo import _cases
    from tileorch.driver import compile_program

    BUILD.mkdir(parents=True, exist_ok=True)
    failures = 0
    for name, case in _cases().items():
        if names and name not in names:
            continue
        args = [ArrayConstraint(_ct_dtype(dt), nd, index_dtype=_ct_dtype_i32(), stride_lower_bound_incl=0,
                                alias_groups=(), may_alias_internally=False,
                                stride_constant=(None,) * (nd - 1) + (1,), stride_divisible_by=(1,) * nd,
                                shape_divisible_by=(1,) * nd, base_addr_divisible_by=16)
                for dt, nd in case["dtypes"]] + list(case["consts"])
        path = BUILD / f"{name}.tileirbc"
        export_kernel(case["kernel"], [KernelSignature(args, CallingConvention.cutile_python_v1())], str(path),
                      gpu_code=None, output_format="tileir_bytecode", bytecode_version="13.4")
        start = time.perf_counter()
        try:
            prog = compile_program(path.read_bytes(), str(path))
        except Exception as exc:  # noqa: BLE001 - reported per case
            print(f"{name:16s} FAILED to compile: {type(exc).__name__}: {exc}")
            failures += 1
            continue
        seconds = time.perf_counter() - start
        (BUILD / f"{name}.cubin").write_bytes(prog.cubin or b"")
        (BUILD / f"{name}.json").write_text(json.dumps({"kernel": prog.kernel, "threads": prog.threads,
                                                        "kind": prog.kind, "compile_s": round(seconds, 2)}))
        print(f"{name:16s} {prog.kind:5s} {prog.threads:4d} threads  compile {seconds:5.1f} s  "
              f"({len(prog.ptx.splitlines())} PTX lines)")
    return 1 if failures else 0


def _ct_dtype_i32():
    import cuda.tile as ct

    return ct.int32


def _flat_args(tensors) -> list:
    out = []
    for t in tensors:
        out.append(t)
        out.extend(int(x) for x in t.shape)
        out.extend(int(x) for x in t.stride())
    return out


def run(out_dir: Path, names: list[str] | None, iters: int) -> int:
    import torch

    from cutile_kernel_zoo import _cases
    from tileorch.testing.timing import bench_ms
    from tileorch.runtime import Module, launch

    try:
        import cuda.tile as ct
    except ImportError:
        ct = None
    torch.manual_seed(0)
    rows, bad = [], 0
    for name, case in _cases().items():
        if names and name not in names:
            continue
        meta_path = BUILD / f"{name}.json"
        if not meta_path.exists():
            rows.append({"case": name, "error": "not built"})
            bad += 1
            continue
        meta = json.loads(meta_path.read_text())
        kernel = Module((BUILD / f"{name}.cubin").read_bytes(), label=name).kernel(meta["kernel"])
        shape = case["shape"]
        inputs, outputs = case["make"](shape)
        grid = case["grid"](shape)
        args = _flat_args(inputs + outputs)
        row = {"case": name, "shape": shape, "grid": grid, "threads": meta["threads"], "compile_s": meta["compile_s"]}
        try:
            launch(kernel, grid, (meta["threads"], 1, 1), args, timeout_s=30.0)
        except Exception as exc:  # noqa: BLE001
            row["error"] = f"{type(exc).__name__}: {exc}"[:300]
            rows.append(row)
            bad += 1
            print(f"{name:16s} ERROR {row['error']}")
            continue
        refs = case["ref"](inputs)
        errs = []
        for got, want in zip(outputs, refs):
            if got.dtype in (torch.int32, torch.int64):
                errs.append(float((got.long() != want.long()).sum()))
            else:
                g = got.float()
                if not bool(torch.isfinite(g).all()):
                    errs.append(float("inf"))
                else:
                    errs.append(float((g - want.float()).abs().max() / want.float().abs().max().clamp_min(1e-6)))
        row["max_rel_err"] = max(errs)
        row["ok"] = row["max_rel_err"] <= case["tol"]
        bad += not row["ok"]
        row["tileorch_ms"] = bench_ms(lambda: launch(kernel, grid, (meta["threads"], 1, 1), args, wait=False), iters)
        if case["torch_fn"] is not None:
            row["torch_ms"] = bench_ms(lambda: case["torch_fn"](inputs), iters)
            row["vs_torch"] = row["torch_ms"] / row["tileorch_ms"]
        if ct is not None:
            ct_args = tuple(inputs + outputs) + tuple(case["consts"])
            stream = torch.cuda.current_stream()
            try:
                ct.launch(stream, grid, case["kernel"], ct_args)
                torch.cuda.synchronize()
                row["cutile_ms"] = bench_ms(lambda: ct.launch(stream, grid, case["kernel"], ct_args), iters)
                row["vs_cutile"] = row["cutile_ms"] / row["tileorch_ms"]
            except Exception as exc:  # noqa: BLE001 - cuTile/tileiras may be absent on the machine
                row["cutile_error"] = f"{type(exc).__name__}: {exc}"[:200]
        rows.append(row)
        print(f"{name:16s} {'OK ' if row['ok'] else 'BAD'} err {row['max_rel_err']:.2e}  tileorch "
              f"{row['tileorch_ms'] * 1e3:8.1f} us  torch x{row.get('vs_torch', float('nan')):.2f}  "
              f"cuTile x{row.get('vs_cutile', float('nan')):.2f}", flush=True)
    record = {"device": torch.cuda.get_device_name(), "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
              "rows": rows, "failures": bad}
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "cutile_kernels.json").write_text(json.dumps(record, indent=1, default=str))
    print(f"{len(rows) - bad}/{len(rows)} cases correct")
    return 1 if bad else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build")
    b.add_argument("names", nargs="*")
    r = sub.add_parser("run")
    r.add_argument("names", nargs="*")
    r.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    r.add_argument("--iters", type=int, default=30)
    ns = ap.parse_args(argv)
    return build(ns.names) if ns.cmd == "build" else run(ns.out, ns.names, ns.iters)


if __name__ == "__main__":
    sys.exit(main())
