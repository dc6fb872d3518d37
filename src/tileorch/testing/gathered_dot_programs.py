"""Dots whose A (or B) rows are gathered through an index array, written as users write them in cuTile 1.7
(session 25, issue 20: "gathered-A MoE"): MoE expert GEMMs over sorted token ids (vLLM's fused-MoE layout,
the expert of each row tile from a table: sweep 16's ``moe_gathered_rows_expert_table``, run here), the same with the router weight scaling each row, a ragged
token count whose tail rows are masked, an embedding-bag style product (ids -> table rows -> a dense
layer), tokens that are columns of a feature-major array (gathered, then transposed into A), rows of a paged buffer found through a page table, a dot whose A columns and B rows (K) are
gathered (pruned channels) and one whose B rows are an adapter's, picked by a loaded slot.  Index arrays hold repeated and out-of-order rows; the tables' shapes are ragged.

Entries are :class:`tileorch.testing.user_programs.UserProgram` in :data:`PROGRAMS`, driven by
tests/unit/test_gathered_dot.py (path, remark, ptxas, the PTX emulator against numpy) and
tests/gpu/test_gathered_dot_gpu.py (the GPU against torch).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar
from tileorch.testing.user_programs16 import moe_gathered_rows_expert_table

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
F32, F16, I32, I64 = "float32", "float16", "int32", "int64"
C = ct.Constant
ZERO = ct.PaddingMode.ZERO


def _a(shape, dt=F16):
    return (tuple(shape), dt)


@ct.kernel
def moe_router_weight_scaled(X, SortedTok, TopkW, W, Y, e: int, tm: C[int], tn: C[int], tk: C[int]):
    """One expert's GEMM over its routed tokens, each output row scaled by its router weight
    ``TopkW[r]`` (f32, loaded as a ``(tm,)`` vector); the rows in routed order."""
    bm, bn = ct.bid(0), ct.bid(1)
    tok = ct.load(SortedTok, index=(bm,), shape=(tm,), padding_mode=ZERO)
    gate = ct.load(TopkW, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]), padding_value=0)
        w = ct.load(W, index=(e, k, bn), shape=(1, tk, tn), padding_mode=ZERO).reshape((tk, tn))
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, bn), tile=(acc * gate[:, None]).astype(Y.dtype))


@ct.kernel
def moe_ragged_count_masked_tail(X, Tok, W, Y, n_rows: int, tm: C[int], tn: C[int], tk: C[int]):
    """The expert's first ``n_rows`` routed tokens (a runtime count, not a tile multiple): the tail rows
    of the last row tile masked (``mask=live[:, None]``, read as zero); Y's rows past ``n_rows`` are
    outside its bounds."""
    bm, bn = ct.bid(0), ct.bid(1)
    r = bm * tm + ct.arange(tm, dtype=ct.int32)
    live = r < n_rows
    tok = ct.load(Tok, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(X, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(X, (tok[:, None], cols[None, :]), mask=live[:, None], padding_value=0)
        w = ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO)
        acc = ct.mma(a, w, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def embedding_rows_dense(Ids, Table, W, Bias, Y, tm: C[int], tn: C[int], tk: C[int]):
    """An embedding lookup feeding a dense layer: ``Y = Table[Ids] @ W + Bias`` with int64 ids (repeated
    ids, a ragged batch of ids), the table rows gathered in the K loop."""
    bm, bn = ct.bid(0), ct.bid(1)
    ids = ct.load(Ids, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(Table, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(Table, (ids[:, None], cols[None, :]))
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    b = ct.load(Bias, index=(bn,), shape=(tn,), padding_mode=ZERO)
    ct.store(Y, index=(bm, bn), tile=(acc + b[None, :]).astype(Y.dtype))


@ct.kernel
def paged_rows_gemm(Pages, PageTable, W, Y, page: C[int], tm: C[int], tn: C[int], tk: C[int]):
    """Rows of a paged buffer (``Pages`` ``[P * page, K]``): logical row ``r`` lives at physical row
    ``PageTable[r // page] * page + r % page`` (the page table's entries out of order); the row index
    computed from a gathered page number, then A's rows gathered by it."""
    bm, bn = ct.bid(0), ct.bid(1)
    r = bm * tm + ct.arange(tm, dtype=ct.int32)
    phys = ct.gather(PageTable, r // page) * page + r % page
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(Pages, axis=1, shape=(tm, tk))):
        cols = k * tk + ct.arange(tk, dtype=ct.int32)
        a = ct.gather(Pages, (phys[:, None], cols[None, :]))
        acc = ct.mma(a, ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def gathered_b_rows_sparse_k(A, W, KIdx, Y, nk: int, tm: C[int], tn: C[int], tk: C[int]):
    """A dot over a selected subset of K (pruned input channels): A's columns and W's rows both picked by
    ``KIdx`` (``nk`` entries, ragged): A gathered by columns, B gathered by rows."""
    bm, bn = ct.bid(0), ct.bid(1)
    rows = bm * tm + ct.arange(tm, dtype=ct.int32)
    ncols = bn * tn + ct.arange(tn, dtype=ct.int32)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.cdiv(nk, tk)):
        kk = ct.load(KIdx, index=(k,), shape=(tk,), padding_mode=ZERO)
        live = k * tk + ct.arange(tk, dtype=ct.int32) < nk
        a = ct.gather(A, (rows[:, None], kk[None, :]), mask=live[None, :], padding_value=0)
        b = ct.gather(W, (kk[:, None], ncols[None, :]), mask=live[:, None], padding_value=0)
        acc = ct.mma(a, b, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def feature_major_tokens_transposed(XT, Tok, W, Y, tm: C[int], tn: C[int], tk: C[int]):
    """Activations stored feature-major (``XT`` ``[K, T]``): the routed tokens are *columns* of XT, gathered as a
    ``(tk, tm)`` tile and transposed into A (``ct.transpose``): A's rows gathered through a transpose."""
    bm, bn = ct.bid(0), ct.bid(1)
    tok = ct.load(Tok, index=(bm,), shape=(tm,), padding_mode=ZERO)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(XT, axis=0, shape=(tk, tm))):
        feats = k * tk + ct.arange(tk, dtype=ct.int32)
        at = ct.gather(XT, (feats[:, None], tok[None, :]))
        acc = ct.mma(ct.transpose(at), ct.load(W, index=(k, bn), shape=(tk, tn), padding_mode=ZERO), acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


@ct.kernel
def lora_gathered_adapter_rows(X, Aset, Slot, Y, tm: C[int], tn: C[int], tk: C[int]):
    """A batch of adapters stacked as rows of one array (``Aset`` ``[S * K, N]``): the program's adapter
    ``Slot[0]`` picks K rows ``s K + k`` of B (a gathered B whose row index is a loaded scalar plus a range);
    A dense."""
    bm, bn = ct.bid(0), ct.bid(1)
    s = ct.gather(Slot, 0)
    ncols = bn * tn + ct.arange(tn, dtype=ct.int32)
    kk = ct.num_tiles(X, axis=1, shape=(tm, tk))
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(kk):
        krows = s * (kk * tk) + k * tk + ct.arange(tk, dtype=ct.int32)
        b = ct.gather(Aset, (krows[:, None], ncols[None, :]))
        acc = ct.mma(ct.load(X, index=(bm, k), shape=(tm, tk), padding_mode=ZERO), b, acc)
    ct.store(Y, index=(bm, bn), tile=acc.astype(Y.dtype))


# ----------------------------------------------------------------------------------------------- the table
# (paths: since session 25 a gathered A runs on the GEMM tier (consumer-loaded register A); "simt" entries carry
# the located refusal's text in ``error``: two gathered operands, a gathered B)

GATHERED = "this dot operand is gathered"

_add("moe_gathered_rows_expert_table", moe_gathered_rows_expert_table,
     [_a((300, 128)), _a((384,), I32), _a((6,), I32), _a((3, 128, 192)), _a((384, 192)), 64, 64, 64], (6, 3), "gemm",
     outputs=(4,))
_add("moe_router_weight_scaled", moe_router_weight_scaled,
     [_a((300, 128)), _a((200,), I32), _a((200,), F32), _a((3, 128, 128)), _a((200, 128)), 1, 64, 64, 64], (4, 2),
     "gemm", outputs=(4,))
_add("moe_ragged_count_masked_tail", moe_ragged_count_masked_tail,
     [_a((300, 192)), _a((256,), I32), _a((192, 128)), _a((200, 128)), 200, 64, 64, 64], (4, 2), "gemm",
     outputs=(3,))
_add("embedding_rows_dense", embedding_rows_dense,
     [_a((150,), I64), _a((1000, 128)), _a((128, 192)), _a((192,), F32), _a((150, 192)), 64, 64, 64], (3, 3), "gemm",
     outputs=(4,))
_add("paged_rows_gemm", paged_rows_gemm,
     [_a((512, 128)), _a((12,), I32), _a((128, 128)), _a((192, 128)), 16, 64, 64, 64], (3, 2), "gemm",
     outputs=(3,))
_add("feature_major_tokens_transposed", feature_major_tokens_transposed,
     [_a((128, 300)), _a((192,), I32), _a((128, 128)), _a((192, 128)), 64, 64, 64], (3, 2), "gemm",
     outputs=(3,))
_add("lora_gathered_adapter_rows", lora_gathered_adapter_rows,
     [_a((192, 128)), _a((3 * 128, 128)), _a((1,), I32), _a((192, 128)), 64, 64, 64], (3, 2), "simt",
     error=GATHERED, outputs=(3,))
_add("gathered_b_rows_sparse_k", gathered_b_rows_sparse_k,
     [_a((192, 256)), _a((256, 128)), _a((100,), I32), _a((192, 128)), 100, 64, 64, 64], (3, 2), "simt",
     error=GATHERED, outputs=(3,))


def moe_routing(route, experts: int, tm: int, generator=None):
    """(sorted token ids, the expert of each ``tm``-row tile, each expert's row offsets) of a torch routing
    table ``route`` (``[tokens, top_k]`` expert ids), as vLLM's fused MoE lays them out: each expert's tokens
    (in a random order when ``generator`` is given, else ascending) padded to the row tile with token 0."""
    import torch

    runs, tile_expert, bounds = [], [], [0]
    for e in range(experts):
        ids = torch.nonzero((route == e).any(1)).flatten().int()
        if generator is not None:
            ids = ids[torch.randperm(ids.numel(), device=ids.device, generator=generator)]
        pad = (-ids.numel()) % tm
        runs.append(torch.cat([ids, torch.zeros(pad, dtype=torch.int32, device=ids.device)]))
        tile_expert += [e] * ((ids.numel() + pad) // tm)
        bounds.append(bounds[-1] + runs[-1].numel())
    return torch.cat(runs), torch.tensor(tile_expert, dtype=torch.int32, device=route.device), bounds
