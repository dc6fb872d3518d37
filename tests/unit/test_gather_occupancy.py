"""The resident-CTA hint of loop-free gather kernels (tileaa_to_simt/gather_occupancy.py) and the
backend's fallback that drops it where ptxas spills to meet it (backend/compile.py)."""

from __future__ import annotations

import pytest

from tileorch.backend.ptxas import ptxas_available, without_ctas_hint
from tileorch.transforms.tileaa_to_simt import gather_occupancy

cutile = pytest.importorskip("cuda.tile")


@pytest.mark.parametrize("warps,threads,want", [("", 256, 6), ("", 128, 12), ("", 512, 3), ("", 1024, None),
                                                 ("0", 256, None), ("64", 64, 32), ("32", 256, 4)])
def test_min_ctas(warps, threads, want, monkeypatch):
    """48 resident warps by default (``W * 32 / threads`` CTAs, at most 32, none below 2); ``0``
    asks nothing."""
    monkeypatch.setenv(gather_occupancy.ENV, warps)
    assert gather_occupancy.min_ctas(threads) == want


@pytest.mark.parametrize("warps", ["junk", "65", "-1"])
def test_warps_outside_0_to_64_are_an_error(warps, monkeypatch):
    """A value outside [0, 64] is the user's error, named (it fell back to the default silently)."""
    from tileorch.settings import SettingError

    monkeypatch.setenv(gather_occupancy.ENV, warps)
    with pytest.raises(SettingError, match=f"TILEORCH_GATHER_WARPS='{warps}': expected an integer 0..64"):
        gather_occupancy.min_ctas(128)


def test_without_ctas_hint_only_named_entries():
    ptx = "\n".join([".visible .entry a(", ".param .u64 p", ")", ".maxntid 256, 1, 1", ".minnctapersm 6", "{",
                     "ret;", "}", ".visible .entry b(", ")", ".maxntid 128, 1, 1", ".minnctapersm 12", "{",
                     "ret;", "}"])
    out = without_ctas_hint(ptx, {"a"}).split("\n")
    assert ".minnctapersm 6" not in out and ".minnctapersm 12" in out
    assert out.count(".maxntid 256, 1, 1") == 1 and len(out) == len(ptx.split("\n")) - 1


def _gather_program(dtype: str) -> bytes:
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.memory_programs import gather_rows

    return cutile_bytecode(gather_rows, [((65536, 1024), dtype), ((8188,), "int32"), ((8188, 1024), dtype), 4, 1024])


@pytest.mark.parametrize("dtype,threads,ctas", [("float32", 256, 6), ("bfloat16", 128, 12)])
def test_gather_kernel_asks_resident_ctas(dtype, threads, ctas, monkeypatch):
    """A 4 x 1024 row gather asks ptxas for 48 resident warps; the remark says so; with the switch
    at 0 the PTX has no directive."""
    from tileorch.driver import compile_program

    monkeypatch.delenv(gather_occupancy.ENV, raising=False)
    monkeypatch.delenv("TILEORCH_GATHER_RUNS", raising=False)
    p = compile_program(_gather_program(dtype), "gather", ptxas=False)
    assert f".maxntid {threads}, 1, 1" in p.ptx and f".minnctapersm {ctas}" in p.ptx, p.ptx[:2000]
    assert any(f"keep {ctas} CTAs resident per SM" in r for r in p.remarks), p.remarks
    monkeypatch.setenv(gather_occupancy.ENV, "0")
    p = compile_program(_gather_program(dtype), "gather", ptxas=False)
    assert ".minnctapersm" not in p.ptx and not any("CTAs resident" in r for r in p.remarks), p.remarks


def test_no_hint_without_gather(monkeypatch):
    """A kernel that loads no tile through pointers (a row softmax) gets no hint."""
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.memory_programs import softmax

    monkeypatch.delenv(gather_occupancy.ENV, raising=False)
    p = compile_program(cutile_bytecode(softmax, [((4096, 1024), "float16"), ((4096, 1024), "float16"), 1024]),
                        "softmax", ptxas=False)
    assert ".minnctapersm" not in p.ptx


@pytest.mark.skipif(not ptxas_available(), reason="ptxas not installed")
def test_spilling_hint_is_dropped(monkeypatch):
    """Eight 16-byte runs a thread (TILEORCH_GATHER_RUNS=8: 128 threads) cannot fit 42 registers:
    ptxas would spill (ptxas 13.0: 444 B) to keep 12 CTAs, so the kernel is assembled again
    without the directive, says so, and does not spill; at the default sizing it keeps it."""
    from tileorch.driver import compile_program

    monkeypatch.delenv(gather_occupancy.ENV, raising=False)
    monkeypatch.setenv("TILEORCH_GATHER_RUNS", "8")
    p = compile_program(_gather_program("float32"), "gather")
    assert ".minnctapersm" not in p.ptx
    assert any("resident-CTA hint (.minnctapersm) dropped" in r for r in p.remarks), p.remarks
    assert not any(r.startswith("warning: ptxas spilled") for r in p.remarks), p.remarks
    monkeypatch.delenv("TILEORCH_GATHER_RUNS")
    p = compile_program(_gather_program("float32"), "gather")
    assert ".minnctapersm 6" in p.ptx and not any("dropped" in r for r in p.remarks), p.remarks
    assert any(r.startswith("remark: ptxas:") and " 0 spills" in r for r in p.remarks), p.remarks


@pytest.mark.parametrize("vbytes,runs,threads,access", [("4", "", 128, "ld.global.b32"),
                                                        ("8", "8", 256, "ld.global.v2.b32"),
                                                        ("", "", 256, "ld.global.v4.b32")])
def test_simt_vector_bytes_switch(vbytes, runs, threads, access, monkeypatch):
    """``TILEORCH_SIMT_VECTOR_BYTES`` narrows the SIMT layouts' widest access (4: tileiras's layout
    of a 4 x 1024 f32 row gather: no vector access left, so the kernel's 4 warps, one element per
    access); unset: 16 bytes (values other than 4, 8, 16: tileorch.settings' error, test_settings.py).
    The layout remark names the width."""
    from tileorch.driver import compile_program

    monkeypatch.delenv(gather_occupancy.ENV, raising=False)
    monkeypatch.setenv("TILEORCH_SIMT_VECTOR_BYTES", vbytes)
    monkeypatch.setenv("TILEORCH_GATHER_RUNS", runs)
    p = compile_program(_gather_program("float32"), "gather", ptxas=False)
    assert f".maxntid {threads}, 1, 1" in p.ptx, p.ptx[:2000]
    rows = [line for line in p.ptx.splitlines() if "ld.global" in line and "[%rd" in line]
    wider = {"ld.global.b32": ("ld.global.v2", "ld.global.v4"), "ld.global.v2.b32": ("ld.global.v4",),
             "ld.global.v4.b32": ()}[access]
    assert any(access in r for r in rows) and not any(w in r for r in rows for w in wider), rows[:8]
    layout = next(r for r in p.remarks if "SIMT layout" in r)
    want = {"4": "TILEORCH_SIMT_VECTOR_BYTES=4: at most 4 bytes", "8": "(8 bytes of "}.get(
        vbytes, "(16 bytes of ")
    assert want in layout, layout
