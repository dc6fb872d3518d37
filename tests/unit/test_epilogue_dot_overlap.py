"""The epilogue dot's loop over N tiles with each next tile's second-dot WGMMAs issued before the current tile's
store (``TILEORCH_EPILOGUE_DOT_OVERLAP=1``, ``GemmConfig.epi_overlap``, ``epilogue_dot.n_loop_overlap``): the PTX
emulator (which reports an instruction touching an in-flight WGMMA's registers, the A fragments two WGMMAs share
among them) against numpy, outputs NaN-prefilled, ragged M, N and K, with the direct and the TMA stores; the PTX's
order; the remarks; ptxas without spills (``tileorch check``: test_epilogue_dot_tma_store).  Needs cuda-tile and ml_dtypes, no GPU."""

from __future__ import annotations

import re

import numpy as np
import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")
pytest.importorskip("ml_dtypes")

import test_epilogue_dot_programs as edp  # noqa: E402
import test_epilogue_dot_tma_store as tma  # noqa: E402

from tileorch.testing import epilogue_dot_programs as P  # noqa: E402

ENV = "TILEORCH_EPILOGUE_DOT_OVERLAP"
STORES = {"direct": edp.EMULATE, "tma": tma.TMA}
"""The emulator's overrides per store kind (the TMA store also needs its setting)."""


@pytest.fixture(autouse=True)
def _overlap(monkeypatch):
    monkeypatch.setenv(ENV, "1")


@pytest.mark.parametrize("store", sorted(STORES))
@pytest.mark.parametrize("epi_c", [1, 2, 3])
def test_relu_mlp_with_the_next_tiles_wgmmas_before_the_store(store, epi_c, monkeypatch):
    """``relu(x W1 + b1) W2 + b2`` on 5 N tiles of 128 (the last 88 wide), 200 rows, K 136: one N tile per work
    tile (the loop runs no iteration: the first tile's WGMMAs, release and store), 2 and 3 (a shorter last work
    tile per row)."""
    monkeypatch.setenv(tma.ENV, "1" if store == "tma" else "0")
    spec, inputs, want = tma._relu_mlp(200, 136, 64, 600)
    prog = edp._compile(P.mlp_biases_relu, spec, STORES[store])
    assert prog.gemm_config.epi_overlap and prog.gemm_config.epilogue == store, prog.gemm_config
    assert any(r.startswith(f"remark: {ENV}=1: each next N tile's second-dot WGMMAs") for r in prog.remarks)
    y = edp._emulate(P.mlp_biases_relu, spec, inputs, 5, 3, epi_c=epi_c, config=STORES[store])
    np.testing.assert_allclose(y, want, atol=2e-2, rtol=1e-2)


def test_nn_linear_bf16_k_major_e_overlapped_and_stored_by_tma(monkeypatch):
    """test_epilogue_dot_tma_store's nn.Linear MLP (bf16, K-major E, 3 of 4 N tiles per work tile) overlapped."""
    monkeypatch.setenv(tma.ENV, "1")
    tma.test_nn_linear_mlp_bf16_k_major_e_stored_by_tma()


def test_not_applied_without_the_loop(monkeypatch):
    """``TILEORCH_EPILOGUE_DOT_COARSEN=off``: one N tile per work tile, nothing to overlap, a remark says so."""
    monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_COARSEN", "off")
    spec = [edp._a((200, 256)), edp._a((256, 64)), edp._a((64, 192)), edp._a((200, 192)), 64, 128, 128, 64]
    prog = edp._compile(P.mlp_silu_one_hidden_tile, spec, "")
    assert not prog.gemm_config.epi_overlap, prog.gemm_config
    assert any(r.startswith(f"remark: {ENV}=1 not applied: the second dot covers one N tile per work tile")
               for r in prog.remarks), prog.remarks


@pytest.mark.parametrize("store", ["0", "1"])
def test_the_benchmark_shape_issues_before_it_stores_without_spills(store, monkeypatch):
    """The nn.Linear MLP at the benchmark's tiles: inside the loop the next tile's four m64n128k16 WGMMAs, then
    ``wgmma.wait_group 1`` and E's release, then the current tile's stores (32 ``st.global.b32`` or the staging
    and 2 bulk stores), then ``wait_group 0``; ptxas sm_90a without spills."""
    from tileorch.backend.ptxas import ptxas_available, run_ptxas

    monkeypatch.setenv(tma.ENV, store)
    prog = edp._compile(P.mlp_nn_linear_weights, tma.MLP_SPEC, "")
    assert prog.gemm_config.epi_overlap, prog.gemm_config
    stores = r"(?:[^\n]*st\.global\.b32[^\n]*\n(?:[^\n]*\n)*?){32}" if store == "0" else \
        r"(?:(?:[^\n]*\n)*?[^\n]*cp\.async\.bulk\.tensor\.2d\.global\.shared::cta[^\n]*\n){2}"
    pattern = (r"(?:wgmma\.mma_async\.sync\.aligned\.m64n128k16[^\n]*\n(?:[^\n]*\n)*?){4}[^\n]*"
               r"wgmma\.commit_group[^\n]*\n\s*wgmma\.wait_group\.sync\.aligned\s+1;(?:[^\n]*\n)*?" + stores +
               r"(?:[^\n]*\n)*?\s*wgmma\.wait_group\.sync\.aligned\s+0;")
    assert len(re.findall(pattern, prog.ptx)) == prog.gemm_config.consumer_groups
    if not ptxas_available():
        pytest.skip("no ptxas")
    assert not run_ptxas(prog.ptx, "sm_90a").spill_warnings()


@pytest.mark.parametrize("epi_c", [2, 5])
@pytest.mark.parametrize("name", ["one_d", "swapped", "scaled", "transposed"])
def test_review26_adversarial_programs_overlapped(name, epi_c):
    """test_review26_epilogue_n_loop's programs (the column tile from a 1-D grid, the grid's axes swapped, the output
    scaled by the column tile, a transposed store) with the setting: right where they take the loop (the peeled
    last tile's column the loop's), unchanged where they keep one N tile."""
    import test_review26_epilogue_n_loop as r26

    r26.test_n_loop_adversarial(name, epi_c)
