"""Byte-identity of the generated PTX before and after a compile-time change (issues 22, 19).

Usage::

    python tools/ptx_identity.py save  DIR [--only PREFIX]  # PTX of every input -> DIR/<name>.ptx
    python tools/ptx_identity.py check DIR [--only PREFIX]  # compile again, compare with DIR; exit 1 on a difference
                                                            # (a differing program's new PTX: DIR/differs/<name>.ptx)

The inputs: every ``examples/*.mlir`` (at the module's own target), the cuTile programs of
``benchmarks/compile_time.py`` and the chained-dots set of :func:`chained_programs` (the
attention / two-GEMM programs of ``tileorch.testing.attention_programs``: head dims 16 to 256,
causal, bf16, grouped key/value heads, soft cap, K stored transposed, the MLP chains), each
chained program compiled four times: as is, with ``TILEORCH_ATTN_OVERLAP=1`` (name suffix
``+overlap``), with ``TILEORCH_ATTN_PINGPONG=1`` (``+pingpong``) and with ``TILEORCH_ATTN_ROW_GROUPS=0`` (``+rows128``).  cuTile programs are
exported to bytecode once, under ``DIR/bytecode``; ``check`` reuses that bytecode, so the
comparison does not depend on cuTile's exporter.  Compiles run in this process with the cache
off and without ptxas (the PTX is what is compared).  ``--only PREFIX`` restricts both modes to
the inputs whose name starts with ``PREFIX``.

``epidot_*``: the GEMM-then-GEMM programs of :func:`epidot_programs` (the GEMM kernel's second dot on the
accumulator).

``simt_*``: every memory-bound (SIMT-path) program of the test programs (:func:`simt_programs`:
the ``user_programs`` sweeps' SIMT programs, the ``memory_programs`` zoo at the tile sizes,
element types and array shapes of its CPU/GPU tests and benchmark, the ``op_programs``), the
zoo's programs also under each SIMT environment switch (:data:`SIMT_ENV_VARIANTS`): ``--only
simt_`` compares what the SIMT layout passes and lowering generate.
"""

from __future__ import annotations

import math
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV_VARIANTS = {"": {"TILEORCH_ATTN_OVERLAP": "0"}, "+overlap": {"TILEORCH_ATTN_OVERLAP": "1"},
                "+pingpong": {"TILEORCH_ATTN_PINGPONG": "1", "TILEORCH_ATTN_OVERLAP": "0"},
                "+rows128": {"TILEORCH_ATTN_OVERLAP": "1", "TILEORCH_ATTN_ROW_GROUPS": "0"}}
"""Name suffix -> environment of the chained programs' compiles.  ``+rows128``: the default switches with row groups
off (``TILEORCH_ATTN_ROW_GROUPS=0``): the kernel of 128-row instances, which the launcher runs where the default
``auto``'s four row groups would lose (a small grid) and which the default kernel of every d64-or-less program
written with 128x64 tiles was before session 35 (those programs' ``+overlap`` PTX then equals their ``+rows128``)."""
SIMT_ENV_VARIANTS = {"+no_warp_programs": {"TILEORCH_WARP_PROGRAMS": "0"},
                     "+programs_per_warp1": {"TILEORCH_PROGRAMS_PER_WARP": "1"},
                     "+programs_per_warp4": {"TILEORCH_PROGRAMS_PER_WARP": "4"},
                     "+no_prefetch_unroll": {"TILEORCH_PREFETCH_UNROLL": "0"},
                     "+no_cluster_split": {"TILEORCH_CLUSTER_SPLIT": "0"},
                     "+no_simt_mma": {"TILEORCH_SIMT_MMA": "0"}}
"""Name suffix -> environment: the SIMT path's switches, applied to the ``simt_mem_*_f16_*`` programs."""
ALL_ENV_KEYS = sorted({k for env in (*ENV_VARIANTS.values(), *SIMT_ENV_VARIANTS.values()) for k in env})


def chained_programs() -> dict[str, tuple]:
    """name -> (kernel, [array (shape, dtype) or scalar/constant value]) of the chained-dots set."""
    from tileorch.testing import attention_programs as ap

    bh, seq = 4, 1000  # a ragged last key tile
    out = {}

    def attn(d, tm=128, tn=64, causal=False, dtype="float16"):
        qkv = [((bh, seq, d), dtype)] * 4
        return ap.attention_fwd, qkv + [1.0 / math.sqrt(d) / math.log(2.0), seq, tm, tn, d, causal]

    for d in (16, 32, 64, 128, 256):
        out[f"chained_attn_d{d}"] = attn(d)
    out["chained_attn_d64_causal"] = attn(64, causal=True)
    out["chained_attn_d128_causal"] = attn(128, causal=True)
    out["chained_attn_d64_bf16"] = attn(64, dtype="bfloat16")
    out["chained_attn_d128_bf16_causal"] = attn(128, causal=True, dtype="bfloat16")
    out["chained_attn_d64_tm64"] = attn(64, tm=64)
    out["chained_attn_d64_tn128"] = attn(64, tn=128)
    out["chained_attn_d32_tn32"] = attn(32, tn=32)
    b, h, group, s = 2, 4, 2, 1024

    def branchy(d, causal, group, tn=128, even=True):
        q = [((b, h, s, d), "float16")]
        kv = [((b, h // group, s, d), "float16")] * 2
        return ap.attention_fwd_branchy, q + kv + q + [1.0 / math.sqrt(d), 0, d, h, 128, tn, group, causal, even]

    out["chained_branchy_gqa_d64"] = branchy(64, False, group)
    out["chained_branchy_gqa_d128_causal"] = branchy(128, True, group)
    out["chained_branchy_mha_d64_causal"] = branchy(64, True, 1, tn=64)
    for cap in (False, True):
        d = 64
        qkv = [((bh, seq, d), "float16")] * 4
        out[f"chained_natural{'_softcap' if cap else ''}_d64"] = (ap.attention_fwd_natural,
                                                                  qkv + [0.125, 30.0, seq, 128, 64, d, cap])
    d = 64
    out["chained_kt_d64"] = (ap.attention_fwd_kt, [((bh, seq, d), "float16"), ((bh, d, seq), "float16"),
                                                   ((bh, seq, d), "float16"), ((bh, seq, d), "float16"),
                                                   0.18, seq, 128, 64, d])
    out["chained_lse_d64"] = (ap.attention_fwd_lse, [((bh, seq, d), "float16")] * 4 + [((bh, seq), "float32"),
                                                                                     0.125, seq, 128, 64, d])
    m = 1024
    out["chained_mlp_relu"] = (ap.mlp_chain, [((m, 128), "float16"), ((128, 512), "float16"),
                                              ((512, 128), "float16"), ((m, 128), "float16"), 128, 64, 128, 128])
    out["chained_mlp_relu_tm64"] = (ap.mlp_chain, [((m, 64), "float16"), ((64, 256), "float16"),
                                                   ((256, 64), "float16"), ((m, 64), "float16"), 64, 64, 64, 64])
    out["chained_mlp_silu"] = (ap.mlp_silu, [((m, 128), "bfloat16"), ((128, 512), "bfloat16"),
                                             ((512, 128), "bfloat16"), ((m, 128), "bfloat16"), 0.5, 128, 64, 128, 128])
    return out


def epidot_programs() -> dict[str, tuple]:
    """name -> (kernel, spec) of the GEMM-then-GEMM set (``tileorch.testing.epilogue_dot_programs``: the GEMM
    kernel's second dot on the accumulator, E N-major and K-major, f16 and bf16; sweep 18's squared-ReLU MLP; LoRA)."""
    from tileorch.testing import epilogue_dot_programs as ep
    from tileorch.testing import user_programs18 as u18

    def a(shape, dt="float16"):
        return (shape, dt)

    out = {
        "epidot_lowrank_scaled_bias": (ep.lowrank_scaled_bias, [a((200, 200)), a((200, 64)), a((64, 192)),
                                                                a((192,), "float32"), a((200, 192)), 0.5, 64, 128,
                                                                128, 64]),
        "epidot_mlp_silu": (ep.mlp_silu_one_hidden_tile, [a((200, 256)), a((256, 64)), a((64, 192)), a((200, 192)),
                                                          64, 128, 256, 64]),
        "epidot_mlp_relu_scaled": (ep.mlp_relu_scaled, [a((200, 200)), a((200, 128)), a((128, 128)),
                                                        a((200, 128), "float32"), 0.5, 128, 128, 128, 64]),
        "epidot_mlp_biases_relu": (ep.mlp_biases_relu, [a((200, 136)), a((136, 64)), a((64,), "float32"),
                                                        a((64, 128)), a((128,), "float32"), a((200, 128)), 64, 128,
                                                        64, 64]),
        "epidot_sweep18_mlp_relu_sq_chain_wt": (u18.mlp_relu_sq_chain_wt, u18.PROGRAMS["mlp_relu_sq_chain_wt"].spec),
    }
    for name in ("lowrank_e_transposed", "lowrank_e_view_transposed"):  # E K-major (given [N2, R])
        out[f"epidot_{name}"] = (getattr(ep, name), [a((200, 256)), a((256, 128)), a((192, 128)), a((200, 192)), 128,
                                                     128, 128, 64])
    for dt, h, tn in (("float16", 128, 128), ("bfloat16", 64, 256)):  # both weights in nn.Linear's layout
        out[f"epidot_mlp_nn_linear_{dt}"] = (ep.mlp_nn_linear_weights, [
            a((200, 200), dt), a((h, 200), dt), a((h,), "float32"), a((256, h), dt), a((200, 256), dt), h, 128, tn, 64])
    lora = [a((200, 256)), a((256, 192)), a((256, 64)), a((64, 192)), a((200, 192)), 0.5, 64, 128, 128, 64]
    out["epidot_lora_linear"] = (ep.lora_linear, lora)  # LoRA's three dots (session 25)
    out["epidot_lora_added_after"] = (ep.lora_added_after, lora)
    out["epidot_lora_nn_linear"] = (ep.lora_nn_linear, [a((200, 256)), a((192, 256)), a((64, 256)), a((192, 64)),
                                                        a((192,), "float32"), a((200, 192)), 0.5, 64, 128, 128, 64])
    return out


def simt_programs() -> dict[str, tuple]:
    """name -> (kernel, spec) of the SIMT-path programs (see the module docstring)."""
    from tileorch.testing import memory_programs as mp
    from tileorch.testing import op_programs as op
    from tileorch.testing import user_programs, user_programs2

    out = {}
    for name, p in {**user_programs.PROGRAMS, **user_programs2.PROGRAMS}.items():
        if p.path == "simt":
            out[f"simt_user_{name}"] = (p.kernel, p.spec)
    dts = {"f16": "float16", "bf16": "bfloat16", "f32": "float32"}

    def mem(name, kernel, spec):
        out[f"simt_mem_{name}"] = (kernel, spec)

    for dt in dts:
        for m, n, tn in ((64, 1, 8), (64, 7, 8), (1000, 1001, 1024), (4096, 1000, 1024), (17, 1024, 1024),
                         (5, 4000, 4096), (200, 256, 256), (64, 3, 4)):
            mem(f"softmax_{dt}_{m}x{n}_{tn}", mp.softmax, [((m, n), dts[dt]), ((m, n), dts[dt]), tn])
        for m, n in ((4096, 1024), (333, 1000), (7, 9)):
            mem(f"layernorm_{dt}_{m}x{n}", mp.layernorm, [((m, n), dts[dt]), ((n,), dts[dt]), ((n,), dts[dt]),
                                                          ((m, n), dts[dt]), 1024])
            mem(f"rmsnorm_{dt}_{m}x{n}", mp.rmsnorm, [((m, n), dts[dt]), ((n,), dts[dt]), ((m, n), dts[dt]), 1024])
        mem(f"layernorm_{dt}_256", mp.layernorm, [((512, 256), dts[dt]), ((256,), dts[dt]), ((256,), dts[dt]),
                                                  ((512, 256), dts[dt]), 256])
        for m, n, tm, tn in ((12000, 10000, 4, 1024), (1000, 1001, 4, 512), (513, 7, 16, 256), (3000, 1500, 16, 256),
                             (1024, 512, 4, 256)):
            mem(f"row_sum_{dt}_{m}x{n}_{tm}x{tn}", mp.row_sum, [((m, n), dts[dt]), ((m,), "float32"), tm, tn])
        for m, n, tm, tn in ((1000, 1001, 64, 128), (4096, 4096, 64, 128), (7, 3, 64, 128), (1601, 256, 32, 64)):
            mem(f"col_sum_{dt}_{m}x{n}_{tm}x{tn}", mp.col_sum, [((m, n), dts[dt]), ((n,), "float32"), tm, tn])
        for n in (256, 512, 128):
            mem(f"argmax_{dt}_{n}", mp.argmax, [((1000, n), dts[dt]), ((1000,), "int32"), n])
        for n in (1024, 256):
            mem(f"cumsum_{dt}_{n}", mp.cumsum, [((100, n), dts[dt]), ((100, n), dts[dt]), n])
        for tm, tn in ((32, 64), (128, 128), (64, 64)):
            mem(f"transpose_{dt}_{tm}x{tn}", mp.transpose, [((1000, 1001), dts[dt]), ((1001, 1000), dts[dt]), tm, tn])
        for t in (1024, 2048, 256):
            mem(f"axpby_{dt}_{t}", mp.axpby, [((1_000_003,), dts[dt])] * 3 + [t])
        for tr, tn in ((4, 64), (8, 64), (4, 1024), (1, 128)):
            mem(f"gather_{dt}_{tr}x{tn}", mp.gather_rows, [((3000, tn), dts[dt]), ((1000,), "int32"),
                                                           ((1000, tn), dts[dt]), tr, tn])
            mem(f"scatter_{dt}_{tr}x{tn}", mp.scatter_rows, [((1000, tn), dts[dt]), ((1000,), "int32"),
                                                             ((1000, tn), dts[dt]), tr, tn])
    out["simt_op_grid_dependency"] = (op.grid_dependency, [((4096,), "float32"), ((4096,), "float32"), 256])
    out["simt_op_powers"] = (op.powers, [((4096,), "float32")] * 7 + [256])
    out["simt_op_inserting"] = (op.inserting, [((4096,), "float32"), ((4096,), "float32"), ((32, 64), "float32"),
                                               64])
    return out


def inputs(directory: Path) -> dict[str, tuple[object, dict]]:
    """name -> (source: example path or cuTile bytecode, environment of its compile)."""
    out: dict[str, tuple[object, dict]] = {p.stem: (str(p), {}) for p in sorted((ROOT / "examples").glob("*.mlir"))}
    bc = directory / "bytecode"
    if not bc.is_dir():
        bc.mkdir(parents=True)
        sys.path.insert(0, str(ROOT / "benchmarks"))
        import compile_time as ct

        for name, (kernel, spec, _) in ct._cutile_programs().items():
            ct.export_cutile(name, kernel, spec, bc)
        for name, (kernel, spec) in {**chained_programs(), **epidot_programs(), **simt_programs()}.items():
            try:
                ct.export_cutile(name, kernel, spec, bc)
            except Exception as exc:  # noqa: BLE001 - reported by name, compared as such
                (bc / f"{name}.error").write_text(f"export failed: {type(exc).__name__}: {exc}\n")
    for p in sorted(bc.glob("*.tileirbc")):
        variants = ENV_VARIANTS if p.stem.startswith("chained_") else {"": {}}
        if p.stem.startswith("simt_mem_") and "_f16_" in p.stem:
            variants = {"": {}, **SIMT_ENV_VARIANTS}
        for suffix, env in variants.items():
            out[p.stem + suffix] = (p.read_bytes(), env)
    return out


def _compile(source: object, env: dict) -> str:
    import tileorch

    saved = {k: os.environ.get(k) for k in ALL_ENV_KEYS}
    for k in saved:
        os.environ.pop(k, None)
    os.environ.update(env)
    try:
        return tileorch.compile(source, None, cache=False, ptxas=False, isolate=True).ptx
    except Exception as exc:  # noqa: BLE001 - a failing input is reported by name
        return f"ERROR {type(exc).__name__}: {exc}\n"
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("save", "check"):
        print("usage: python tools/ptx_identity.py save|check DIR [--only PREFIX]\n"
              "  save: write each program's PTX to DIR; check: compare against DIR", file=sys.stderr)
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    mode, directory = argv[0], Path(argv[1])
    only = argv[argv.index("--only") + 1] if "--only" in argv else ""
    differ = compared = 0
    for name, (source, env) in inputs(directory).items():
        if not name.startswith(only):
            continue
        ptx = _compile(source, env)
        path = directory / f"{name}.ptx"
        if mode == "save":
            path.write_text(ptx)
            print(f"saved {name} ({ptx.count(chr(10))} lines{', ' + ptx.strip() if ptx.startswith('ERROR') else ''})")
        else:
            same = path.exists() and path.read_text() == ptx
            differ += not same
            if not same:  # kept beside the saved one, to explain the difference
                (directory / "differs").mkdir(exist_ok=True)
                (directory / "differs" / f"{name}.ptx").write_text(ptx)
            compared += 1
            print(f"{'same' if same else 'DIFFERS'} {name}", flush=True)
    if mode != "save":
        print(f"{compared - differ} of {compared} identical")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
