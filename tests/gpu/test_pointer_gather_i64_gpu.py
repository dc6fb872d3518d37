"""Session 19 (issue 21, item 3): loop-free gathers through tiles of pointers with int64 ids on the
GPU, after the SIMT changes of that session: the CTA sized by the pointer tiles' vector accesses
(64 threads of 4 runs for 16 x 128 bf16, was 32 threads of 8), the `rows < n` / `cols < d` masks
recomputed by each thread (no shared-memory exchange), int64 ids loaded as one 8-byte word.
Against torch indexing; outputs NaN-prefilled, with spare rows after the last that must stay NaN;
ragged token counts and D = 96 in a 128-wide tile.  Skipped without a GPU.
Run: ``python -m pytest -q tests/gpu/test_pointer_gather_i64_gpu.py``."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")
pytest.importorskip("xdsl")
if not torch.cuda.is_available():
    pytest.skip("no GPU", allow_module_level=True)

import tileorch.cutile  # noqa: E402
from tileorch.testing.memory_programs import gather_rows  # noqa: E402
from tileorch.testing.user_programs10 import embedding_gather_int64_ids  # noqa: E402

SPARE = 3
"""Output rows after the last token's (must stay NaN)."""


@pytest.mark.parametrize("tokens,vocab,dtype", [(50, 40, torch.bfloat16), (4099, 30000, torch.bfloat16),
                                                (1000, 777, torch.float16), (16, 5, torch.float32)])
def test_embedding_gather_int64_ids(tokens, vocab, dtype):
    g = torch.Generator(device="cuda").manual_seed(tokens)
    table = torch.randn(vocab, 96, device="cuda", generator=g).to(dtype)
    ids = torch.randint(0, vocab, (tokens,), device="cuda", generator=g, dtype=torch.int64)
    ids[tokens // 2] = vocab - 1
    buf = torch.full((tokens + SPARE, 96), float("nan"), device="cuda", dtype=dtype)
    out = buf[:tokens]
    tileorch.cutile.launch(torch.cuda.current_stream(), ((tokens + 15) // 16, 1, 1), embedding_gather_int64_ids,
                           (ids, table, out, 16, 128))
    torch.cuda.synchronize()
    torch.testing.assert_close(out, table[ids], rtol=0, atol=0)  # a copy: bit for bit
    assert torch.isnan(buf[tokens:]).all(), "rows past the last token are not written"


@pytest.mark.parametrize("rows,cols,dtype", [(4097, 1024, torch.bfloat16), (1000, 256, torch.float32)])
def test_gather_rows_with_out_of_range_ids(rows, cols, dtype):
    """The benchmark's row gather (int32 ids through a view; the pointer tile of the gathered rows):
    ids past the table read zeros, a partial last program."""
    g = torch.Generator(device="cuda").manual_seed(rows)
    table = torch.randn(997, cols, device="cuda", generator=g).to(dtype)
    idx = torch.randint(0, 997, (rows,), device="cuda", generator=g, dtype=torch.int32)
    idx[7] = 2000
    out = torch.full((rows, cols), float("nan"), device="cuda", dtype=dtype)
    tileorch.cutile.launch(torch.cuda.current_stream(), ((rows + 3) // 4, 1, 1), gather_rows, (table, idx, out, 4, cols))
    torch.cuda.synchronize()
    ref = torch.where((idx < 997)[:, None], table[idx.clamp(max=996).long()], torch.zeros((), dtype=dtype, device="cuda"))
    torch.testing.assert_close(out, ref, rtol=0, atol=0)
