"""Session 43's fp8 attention programs (``tileorch.testing.fp8attn43_programs``, issue 20): each program exported
through the launcher's argument description and cuTile's exporter (no GPU) and lowered for sm_90a takes the path its
table entry names; the chained kernels' first dot is an e4m3 / e5m2 WGMMA of K = 32 (``d / 32`` per key tile, said
by a located remark at the dot) beside a 16-bit ``P V``; a program the tier refuses says why at the user's line
(never a silent SIMT fallback); the fp8 kernels assemble with ptxas without spilling and ``tileorch check`` proves
the d64 kernel's rings.  Needs cuda-tile."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from dot_sweep_checks import assert_pipelines_proved, assert_spills_as_listed  # noqa: E402

from tileorch.testing import fp8attn43_programs  # noqa: E402
from tileorch.testing.fp8attn43_programs import PROGRAMS  # noqa: E402

SOURCE = str(Path(fp8attn43_programs.__file__))
TENSOR_CORES = "chained dots compiled through the TileAS tier to TMA + WGMMA"
ALL = bool(os.environ.get("TILEORCH_EMULATE_ALL"))


def compiled(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


def _line(fn, text: str) -> int:
    import inspect

    src, first = inspect.getsourcelines(fn._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(src) if text in ln)


PATH_IN_CI = {"fp8qk_descaled_e4m3_d64", "fp8qk_descaled_e4m3_d128_bm128", "fp8qk_two_scales_e5m2_causal_bf16",
              "fp8qk_gqa_lse_d128", "fp8qkv_p_e4m3", "fp8_kt_stored_n_major", "fp8qk_widened_to_f16"}
"""The programs whose path CI checks (the other shapes' kernels compile in the emulated tests; every program with
``TILEORCH_EMULATE_ALL=1``)."""


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_takes_its_path(name):
    """The table's path; a chained kernel says it took the tensor cores; a refused one names the refusal (the table's
    text) at a line of this set's file; no internal error."""
    if name not in PATH_IN_CI and not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 checks every program")
    p = PROGRAMS[name]
    prog = compiled(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
    else:
        assert not refusals, remarks
        assert any(TENSOR_CORES in r for r in remarks), remarks


FIRST_DOT = {"fp8qk_descaled_e4m3_d64": ("e4m3", 64, 64, "f16"),
             "fp8qk_descaled_e4m3_d128_bm128": ("e4m3", 128, 64, "f16"),
             "fp8qk_two_scales_e5m2_causal_bf16": ("e5m2", 64, 64, "bf16"),
             "fp8qk_gqa_lse_d128": ("e4m3", 128, 64, "bf16")}
"""program -> (first dot type, head dim, key tile, second dot type)."""


@pytest.mark.parametrize("name", sorted(FIRST_DOT))
def test_the_first_dot_is_an_fp8_wgmma(name):
    """The PTX's score WGMMAs are ``m64n{tn}k32.f32.{e4m3|e5m2}`` (no 16-bit first dot), its ``P V`` ones the 16-bit
    type with P from registers; the launch record names both types; the remark at the first dot names the instruction
    and its count per key tile."""
    kind, d, tn, second = FIRST_DOT[name]
    prog = compiled(name)
    wgmmas = set(re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k\d+\.f32\.\w+\.\w+)", prog.ptx))
    assert wgmmas == {f"m64n{tn}k32.f32.{kind}.{kind}", f"m64n{d}k16.f32.{second}.{second}"}, wgmmas
    assert (prog.chained["dtype"], prog.chained["dtype2"]) == (kind, second)
    line = _line(PROGRAMS[name].kernel, "ct.mma(q, ct.transpose(k)")
    said = [r for r in prog.remarks if r.startswith(f"{SOURCE}:{line}:") and ": remark: " in r
            and f"{d // 32} wgmma.mma_async m64n{tn}k32.f32.{kind}.{kind} per key tile" in r]
    assert said, prog.remarks


def test_the_fp8_tiles_are_boxes_of_their_bytes():
    """The tensor maps of the e4m3 Q / K are boxes of 64-byte rows at head dim 64 (64 elements, 64B swizzle) and of
    128-byte rows at head dim 128 (one 128-element box); V (f16) keeps its 128-byte boxes of 64 elements."""
    def maps(name):
        return [(t["box"], t["swizzle"]) for t in compiled(name).chained["tmaps"]]

    assert maps("fp8qk_descaled_e4m3_d64") == [(64, 64), (64, 64), (64, 128)]
    assert maps("fp8qk_descaled_e4m3_d128_bm128") == [(128, 128), (128, 128), (64, 128)]


SPILL_CHECKED = ["fp8qk_descaled_e4m3_d128_bm128", "fp8qkv_p_e4m3"] + (
    ["fp8qkv_p_e4m3_d128_bm128", "fp8qkv_p_e4m3_causal_ragged", "fp8qkv_p_e5m2_v", "fp8qk_descaled_e4m3_d64", "fp8qk_two_scales_e5m2_causal_bf16", "fp8qk_gqa_lse_d128", "fp8qk_descaled_e4m3_d256",
     "fp8qk_descaled_e4m3_bm256_d64", "fp8qk_descaled_e4m3_d32", "fp8qk_descaled_e4m3_d96_in_128",
     "fp8qk_gqa_group_rows_decode"] if ALL else [])
"""In CI the register-heaviest fp8 kernel (head dim 128, two consumer warp groups); the others with
``TILEORCH_EMULATE_ALL=1``."""


@pytest.mark.parametrize("name", SPILL_CHECKED)
def test_fp8_kernel_assembles_without_spills(name):
    assert_spills_as_listed(name, compiled)


def test_the_d64_kernel_is_proved():
    """``tileorch check`` proves the rings and barrier hand-offs of the fp8 d64 kernel (its stage bytes are the
    e4m3 K tile's 4 KiB beside V's 8 KiB)."""
    assert_pipelines_proved(PROGRAMS, "fp8qk_descaled_e4m3_d64")


SECOND_FP8 = {"fp8qkv_p_e4m3": ("e4m3", 64, 64), "fp8qkv_p_e4m3_d128_bm128": ("e4m3", 128, 64),
              "fp8qkv_p_e5m2_v": ("e5m2", 64, 64), "fp8qkv_p_e4m3_causal_ragged": ("e4m3", 64, 64)}
"""program -> (V's type, head dim, key tile) of the fp8 P @ V programs (session 45)."""


@pytest.mark.parametrize("name", sorted(SECOND_FP8))
def test_the_fp8_p_v_is_an_fp8_register_a_wgmma(name):
    """FlashAttention-3's fp8 P V on the tier (session 45): the PTX's P V WGMMAs are ``m64n{d}k32.f32.{v}.{v}`` with
    A in four registers and six operands (no transpose for 8-bit types), ``tn / 32`` a key tile; P converted by
    ``cvt.rn.satfinite.{v}x2.f32`` (no f16 round trip of the e4m3 P, no shuffle beyond the row reductions'); V's
    tensor map reads the launch's key-major copy (``copy: key_major16``, a box of ``d`` rows x ``tn`` key bytes, the
    ``tn``-byte swizzle); the remark at the second dot says so and names the copy."""
    if name != "fp8qkv_p_e4m3" and not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 checks every program")
    kind, d, tn = SECOND_FP8[name]
    prog = compiled(name)
    reg_a = re.findall(r"wgmma\.mma_async\.sync\.aligned\.(m64n\d+k\d+\.f32\.\w+\.\w+) \{[^}]*\}, \{(%r\d+, ){3}%r\d+\}, "
                       r"%rd\d+, p, 1, 1;", prog.ptx)
    assert reg_a and {m for m, _ in reg_a} == {f"m64n{d}k32.f32.{kind}.{kind}"}, reg_a
    assert "k16" not in "".join(re.findall(r"wgmma\.mma_async[^ ]*", prog.ptx))
    assert f"cvt.rn.satfinite.{kind}x2.f32" in prog.ptx and "cvt.rn.f16x2.e4m3x2" not in prog.ptx
    assert prog.chained.get("dtype2", prog.chained["dtype"]) == kind
    v_map = prog.chained["tmaps"][2]
    assert (v_map.get("copy"), v_map["rows"], v_map["box"], v_map["swizzle"], v_map["esize"]) == \
        ("key_major16", d, tn, tn, 1), v_map
    line = _line(PROGRAMS[name].kernel, "acc = ct.mma(p.astype(V.dtype)")
    said = [r for r in prog.remarks if r.startswith(f"{SOURCE}:{line}:") and ": remark: " in r
            and f"{tn // 32} wgmma.mma_async m64n{d}k32.f32.{kind}.{kind} per key tile" in r and "key_major16" in r]
    assert said, prog.remarks


@pytest.mark.parametrize("name", ["fp8qkv_p_e4m3", "fp8qkv_p_e4m3_d128_bm128"])
def test_the_fp8_p_v_kernel_is_proved(name):
    """``tileorch check`` proves the rings and barrier hand-offs of the fp8 P @ V kernels (d64 stage bytes: K's and V's
    copy's 4 KiB each; d128: two consumer warp groups, 8 KiB each)."""
    if name != "fp8qkv_p_e4m3" and not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 checks it")
    assert_pipelines_proved(PROGRAMS, name)


def test_an_fp8_v_of_pages_joined_by_cat_is_refused_at_its_load():
    """Session 37's paged decode with a key tile of two pages joined by ``ct.cat`` (``attnpaged37_programs``), its Q
    and cache e4m3 and P cast to e4m3: the fp8 P @ V reads one plain V tile through its key-major copy, so the tier
    refuses this V, located at its first page's load, and the SIMT path runs the program (session 45)."""
    if not ALL:
        pytest.skip("CI-sized subset: TILEORCH_EMULATE_ALL=1 checks it")
    from tileorch.testing import attnpaged37_programs as p37
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    spec = p37._decode_spec(2, 16, 128, 32, 640, dt="float8_e4m3fn") + [16, 32, 128]
    prog = compile_once(cutile_bytecode(p37.p37_decode_pages_cat, spec), "fp8_paged_cat", arch="sm_90a", ptxas=False)
    assert prog.kind == "simt"
    line = _line(p37.p37_decode_pages_cat, "v0 = ct.load(Vc")
    assert any(r.startswith(f"{p37.__file__}:{line}:") and "an fp8 second dot reads one plain V tile" in r
               and "joined from row blocks (ct.cat)" in r for r in prog.remarks), prog.remarks
