"""Stores interleaved with the loads (``tileaa_to_simt/store_chunks.py``, ``TILEORCH_SIMT_STORE_CHUNK``,
default off; issue 21 item 2: tileiras's row gather stores each chunk before it loads the next).
The gate (cuTile's unordered tokens: an in-place update or two aliasing arrays are ordered, then
nothing moves), the reordered row gather's PTX (loads and stores alternate, the 40-warp
resident-CTA hint kept at 128 threads where the program-order kernel spills to meet it), its
results on the PTX emulator against numpy (ragged rows, out-of-range indices, NaN-prefilled
output), and kernels it must leave alone (the switch off, view loads of whole tiles, a transpose
through shared memory)."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.transforms.tileaa_to_simt import store_chunks  # noqa: E402

TILEIRAS_LIKE = {"TILEORCH_SIMT_VECTOR_BYTES": "4", "TILEORCH_GATHER_RUNS": "32", "TILEORCH_GATHER_WARPS": "40"}
"""tileiras's gather CTA (session 20's SASS): 128 threads, 4-byte accesses, 10 CTAs per SM asked."""


@pytest.mark.parametrize("value,want", [("", 0), ("0", 0), ("8", 8), ("1", 1), ("-2", None), ("x", None)])
def test_the_switch(value, want, monkeypatch):
    """Off unset or 0; a value that is not an integer >= 0 is an error naming the variable."""
    from tileorch.settings import SettingError

    monkeypatch.setenv(store_chunks.ENV, value)
    if want is None:
        with pytest.raises(SettingError, match=f"TILEORCH_SIMT_STORE_CHUNK='{value}'"):
            store_chunks.chunk_loads()
    else:
        assert store_chunks.chunk_loads() == want


def _tile_func(kernel, spec, args=None):
    """:func:`store_chunks.unordered_memory` of each ``nv_tileaa`` function of ``kernel`` (the SIMT
    lowering's input), compiled for ``spec`` (or described from ``args``)."""
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.launchers import cutile as rc
    from tileorch.registry import make_context
    from tileorch.testing.export import cutile_bytecode
    from tileorch.transforms.tileaa_to_simt import ConvertNvTileaaToSimt

    ctx = make_context()
    data = cutile_bytecode(kernel, spec) if args is None else rc.export_bytecode(kernel, rc.describe_arguments(kernel, args))
    seen: list[bool] = []
    real = ConvertNvTileaaToSimt.apply

    def spy(self, ctx, op):
        seen.extend(store_chunks.unordered_memory(f) for f in op.walk() if f.name == "nv_tileaa.func")
        return real(self, ctx, op)

    ConvertNvTileaaToSimt.apply = spy
    try:
        lower_program(load(data, "k", ctx), ctx, "sm_90a", "persistent")
    finally:
        ConvertNvTileaaToSimt.apply = real
    return seen


def test_unordered_only_where_cutile_left_the_accesses_unordered():
    """A copy between two arrays is unordered; an in-place update (cuTile joins the load's token into
    the store's) and the same copy given one array twice (an alias group: the same join) are not; an
    atomic is not; a release store is not."""
    from tileorch.testing.export import FakeDeviceArray
    from tileorch.testing.user_programs12 import atomic_cas_int64_claim
    from tileorch.testing.user_programs13 import rank1_tile_8_over_13, release_store_copy

    assert _tile_func(rank1_tile_8_over_13, [((13,), "float16"), ((13,), "float16"), 8]) == [True]
    same = FakeDeviceArray(0x10000, (13,))  # (an f16 array)
    assert _tile_func(rank1_tile_8_over_13, None, (same, same, 8)) == [False]
    assert _tile_func(atomic_cas_int64_claim, [((16,), "int64"), ((128,), "int64"), 64]) == [False]
    assert _tile_func(release_store_copy, [((256,), "float32"), ((256,), "float32"), 64]) == [False]  # ordered


def _gather(monkeypatch, chunk: str, env=TILEIRAS_LIKE, ptxas=False, rows=10):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.memory_programs import gather_rows

    for k, v in env.items():
        monkeypatch.setenv(k, v)
    monkeypatch.setenv(store_chunks.ENV, chunk)
    spec = [((50, 1024), "float32"), ((rows,), "int32"), ((rows, 1024), "float32"), 4, 1024]
    return compile_once(cutile_bytecode(gather_rows, spec), "gather_rows_chunks", arch="sm_90a", ptxas=ptxas)


def _sequence(ptx: str) -> str:
    return "".join("L" if m.startswith("ld") else "S" for m in re.findall(r"(ld\.global|st\.global)", ptx))


def test_gather_stores_follow_their_loads(monkeypatch):
    """Program order: every load (32 index loads, 32 row loads a thread) then every store.  With
    groups of 8 runs: 4 rounds of 8 index loads, 8 row loads, then the group's stores (in the PTX
    text 16 loads, then 16 stores: the in-bounds and the masked path); the remark says so."""
    before = _sequence(_gather(monkeypatch, "").ptx)
    assert re.fullmatch(r"L+S+", before), before
    p = _gather(monkeypatch, "8")
    after = _sequence(p.ptx)
    assert len(re.findall(r"L+S+", after)) == 4 and after.count("L") == before.count("L"), after
    assert after.count("S") >= before.count("S")
    assert any("stores interleaved with the loads: each group of 8 runs" in r for r in p.remarks), p.remarks


def test_gather_keeps_the_resident_cta_hint_without_spills(monkeypatch):
    """At tileiras's CTA shape the program-order kernel spills to keep 10 CTAs per SM (the hint is
    dropped, 64 registers); interleaved, it keeps the hint without spilling (ptxas 13: 40 registers)."""
    from tileorch.backend.ptxas import ptxas_available

    if not ptxas_available():
        pytest.skip("ptxas not installed")
    off = _gather(monkeypatch, "", ptxas=True)
    assert any("hint (.minnctapersm) dropped" in r for r in off.remarks), off.remarks
    on = _gather(monkeypatch, "8", ptxas=True)
    assert ".minnctapersm 10" in on.ptx and not any("dropped" in r or "spill" in r.lower() and "0 spills" not in r
                                                     for r in on.remarks), on.remarks


@pytest.mark.parametrize("chunk,env", [("8", TILEIRAS_LIKE), ("1", {})], ids=["tileiras_like", "default_layout"])
def test_interleaved_gather_on_the_emulator(chunk, env, monkeypatch):
    """The reordered kernel's PTX against numpy: 10 rows (the third program ragged), indices past the
    table and negative ones read zeros, every output element written once (NaN-prefilled)."""
    from test_user_sweep13_strided import emulate_views

    from tileorch.testing.memory_programs import gather_rows

    _gather(monkeypatch, chunk, env)  # the switches set (compile_once inside emulate_views keys on them)
    rng = np.random.default_rng(21)
    table = rng.standard_normal((50, 1024)).astype(np.float32)
    idx = rng.integers(0, 50, 10).astype(np.int32)
    idx[[1, 7]] = [50, -3]
    out = np.full((10, 1024), np.nan, np.float32)
    prog = emulate_views(gather_rows, "gather_rows_chunks", [table, idx, out, 4, 1024], (3,))
    assert any("stores interleaved" in r for r in prog.remarks), prog.remarks
    want = np.where(((idx >= 0) & (idx < 50))[:, None], table[np.clip(idx, 0, 49)], np.float32(0))
    np.testing.assert_array_equal(out, want)


def test_left_alone(monkeypatch):
    """With the switch on, kernels it does not apply to compile to the PTX they have with it off: an
    axpby (its view loads are one branch per tile: every store needs both), a transpose (a
    shared-memory exchange)."""
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs13 import load_order_f_transpose, pair2d_axpby

    cases = [(pair2d_axpby, [((50, 200), "float32")] * 3 + [2.0, -0.5, 16, 128]),
             (load_order_f_transpose, [((37, 50), "float32"), ((50, 37), "float32"), 16, 32])]
    for kernel, spec in cases:
        data = cutile_bytecode(kernel, spec)
        monkeypatch.delenv(store_chunks.ENV, raising=False)
        off = compile_program(data, "k", ptxas=False)
        monkeypatch.setenv(store_chunks.ENV, "4")
        on = compile_program(data, "k", ptxas=False)
        assert on.ptx == off.ptx and not any("stores interleaved" in r for r in on.remarks), kernel
