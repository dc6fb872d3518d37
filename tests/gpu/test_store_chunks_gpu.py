"""Session 21 (issue 21, item 2): the row gather with its stores interleaved with its loads
(``TILEORCH_SIMT_STORE_CHUNK``, ``tileaa_to_simt/store_chunks.py``) on the GPU, at tileiras's CTA shape
(128 threads of 4-byte accesses, 10 CTAs per SM asked, groups of 8 runs) and at the default CTA
(groups of 1 run), f32 and bf16, ragged row counts, out-of-range indices (zeros), against
``torch.index_select``; outputs NaN-prefilled with spare rows after the last that must stay NaN.
The CPU checks the same kernels' PTX on the emulator (tests/unit/test_store_chunks.py); the speed is
benchmarks/session20_mem_probe.sh's.  Skipped without a GPU.
Run: ``python -m pytest -q tests/gpu/test_store_chunks_gpu.py``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

import tileorch.cutile  # noqa: E402
from tileorch.testing.memory_programs import gather_rows  # noqa: E402

SETTINGS = {"tileiras_like": {"TILEORCH_SIMT_VECTOR_BYTES": "4", "TILEORCH_GATHER_RUNS": "32",
                              "TILEORCH_GATHER_WARPS": "40", "TILEORCH_SIMT_STORE_CHUNK": "8"},
            "default_cta": {"TILEORCH_SIMT_STORE_CHUNK": "1"}}
SPARE = 3


@pytest.mark.parametrize("setting", sorted(SETTINGS))
@pytest.mark.parametrize("rows,vocab,dtype", [(10, 50, torch.float32), (4099, 8192, torch.float32),
                                              (8190, 16384, torch.bfloat16)])
def test_gather_rows_with_store_chunks(setting, rows, vocab, dtype, monkeypatch):
    from tileorch.launchers import cutile as rc

    for k, v in SETTINGS[setting].items():
        monkeypatch.setenv(k, v)
    g = torch.Generator(device="cuda").manual_seed(rows)
    table = torch.randn(vocab, 1024, device="cuda", generator=g).to(dtype)
    idx = torch.randint(0, vocab, (rows,), device="cuda", generator=g, dtype=torch.int32)
    idx[0], idx[rows // 2] = vocab, -1  # out of range: zeros
    buf = torch.full((rows + SPARE, 1024), float("nan"), device="cuda", dtype=dtype)
    out = buf[:rows]
    args = (table, idx, out, 4, 1024)
    tileorch.cutile.launch(torch.cuda.current_stream(), ((rows + 3) // 4, 1, 1), gather_rows, args)
    torch.cuda.synchronize()
    ok = (idx >= 0) & (idx < vocab)
    want = torch.where(ok[:, None], table[idx.clamp(0, vocab - 1).long()], torch.zeros((), dtype=dtype, device="cuda"))
    torch.testing.assert_close(out, want, rtol=0, atol=0)
    assert torch.isnan(buf[rows:]).all(), "rows past the last are not written"
    prog = rc.compiled(gather_rows, rc.describe_arguments(gather_rows, args), "sm_90a", "persistent").program
    if dtype == torch.float32:  # the bf16 kernels are not reordered by the pass (H200 run of 2026-12-05): results only
        assert any("stores interleaved" in r for r in prog.remarks), prog.remarks
