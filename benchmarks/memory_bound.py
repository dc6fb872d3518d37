"""Memory-bound cuTile programs (issue 21): tileorch (``tileorch.cutile.launch``) beside cuTile's
own tileiras (``ct.launch``) and the torch call, in one process, against a same-run
device-to-device copy.  Prints achieved TB/s (bytes read + written once / time) and the ratios
(``vs_tileiras``, ``vs_torch``, ``vs_copy`` per case), then a summary of issue 21's targets
(>= 1.0x tileiras, >= 0.9x torch, >= 0.85 of the copy at >= 256 MB: which cases meet each);
writes JSON (cases and summary) and a PNG bar chart when matplotlib is present.

    python benchmarks/memory_bound.py [--out DIR] [--iters N] [--only NAME ...] [--small]
                                      [--sizes default,small,large] [--no-tileiras]
                                      [--env VAR=VALUE[,VAR=VALUE...] ...]

Kernels: axpby (f32, bf16), row softmax, layernorm, RMSNorm, row sum, column sum, argmax, cumsum,
transpose, row gather (embedding lookup, f32 and bf16) and row scatter (by a permutation); and three
whole kernels from real models (``tileorch.testing.user_programs15``, sweep 15): the cross-entropy
forward over a 32000-token bf16 vocabulary (loop of tiles, log-sum-exp out, the mean's sum and count
by atomics; torch: ``F.cross_entropy``), Llama's rotary embedding (bf16 ``(T, 32, 128)``, table rows
at int64 positions; torch: the Hugging Face ``rotate_half`` formula) and a fused AdamW step in place
(f32 weights and moments, bf16 grads; torch: ``torch.optim.AdamW(fused=True)``, which reads f32
grads); two more online max / sum-of-exp loops over 32000 columns: a logsumexp (f32, sweep 3) and
a log-softmax writing the row (bf16, a second pass re-reads it; sweep 10).
``--sizes`` (default: ``default``, each case at its own size, 16-800 MB): ``small`` and
``large`` run every case again scaled along its leading dimension to ~64 MB and ~1 GB moved,
rows named ``case@small`` / ``case@large``.  The issue's sweep, the lead's one call::

    python benchmarks/memory_bound.py --sizes small,default,large

Cases named ``probe_*`` (measuring variants: the cross entropy 4096 with relaxed atomics or none, the
log-softmax at 8192 / 16384 columns; ``tileorch.testing.rowred_probes``) run only when ``--only`` names them.

``--env`` (repeatable) runs the chosen cases once per setting of tileorch's compile switches, in
one process (tileorch's in-process caches cleared between settings; the disk cache keys the
switches), each row named ``case[setting]``; ``--env default`` (or ``""``) is the defaults.
E.g. the issue-21 probe, the old lowering against the new::

    python benchmarks/memory_bound.py --no-tileiras --only argmax_f32 argmax_f32_x512 col_sum_f32 \
        row_sum_bf16_12000x10000 softmax_f16_rows_x1024 rmsnorm_f16 layernorm_f16 \
        --env TILEORCH_PREFETCH_UNROLL=0,TILEORCH_PROGRAMS_PER_WARP=1 --env default \
        --env TILEORCH_PROGRAMS_PER_WARP=4 --env TILEORCH_CLUSTER_SPLIT_MAX=16

Needs a GPU, torch and cuda-tile.  Every output is checked against the torch result first
(a case whose output is wrong is reported as such, its timing not trusted).  The kernels are
the programs a user writes first (benchmarks/cutile_kernel_zoo.py has the same softmax,
layernorm and row sum at small sizes; these are sized 64 MB to 1 GB).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

import cuda.tile as ct  # noqa: E402

from tileorch.testing.memory_programs import (argmax, axpby, col_sum, cumsum, gather_rows, layernorm,  # noqa: E402
                                              rmsnorm, row_sum, scatter_rows, softmax, transpose)
from tileorch.testing.user_programs3 import logsumexp_online  # noqa: E402
from tileorch.testing.user_programs10 import cross_entropy_fwd_bwd_vocab, log_softmax_vocab_loop  # noqa: E402
from tileorch.testing.row_cache_programs import softmax_three_loops  # noqa: E402
from tileorch.testing.user_programs15 import (adamw_step_inplace, cross_entropy_fwd_mean_atomic,  # noqa: E402
                                              rope_halves_table_rows)
from tileorch.testing.rowred_probes import cross_entropy_fwd_relaxed_atomics, cross_entropy_fwd_row_loss  # noqa: E402


SIZES = {"small": 64 << 20, "large": 1 << 30}
"""``--sizes``: besides ``default`` (each case's own size), every case scaled along its leading
dimension to about this many bytes moved (read + written)."""


def _cases(k: float = 1.0):
    """name -> (kernel, make() -> (inputs, outputs, consts), grid, torch_fn(inputs) -> output, tolerance
    [, extra]), each case's leading dimension scaled by ``k`` (``--small``: 1/16; ``--sizes``: see
    :func:`_sized`).  ``extra`` (a dict, optional) for the kernels whose first output is not the whole
    answer: ``check(inputs, outputs, launch) -> error`` runs tileorch once (``launch()``) and returns
    the error against its own torch reference (instead of ``torch_fn``'s result against the first
    output; in-place kernels snapshot their inputs first), and ``moved(inputs, outputs) -> bytes``
    (instead of :func:`_moved`'s every input and output once)."""
    import torch

    f16, bf16, f32 = torch.float16, torch.bfloat16, torch.float32

    def lead(n: int) -> int:
        return max(1, round(n * k))

    def randn(*shape, dtype=f32):
        return torch.randn(*shape, device="cuda", dtype=f32).to(dtype)

    def nan(*shape, dtype=f32):
        return torch.full(shape, float("nan"), device="cuda", dtype=dtype)

    def index(n: int, bound: int, permutation: bool):
        idx = torch.randperm(bound, device="cuda") if permutation else torch.randint(0, bound, (n,), device="cuda")
        return idx[:n].to(torch.int32)

    long_index = {}  # torch's index_copy_ takes int64 indices: converted once per index tensor, not timed

    def as_long(idx):
        key = (idx.data_ptr(), idx.numel())
        if key not in long_index:
            long_index.clear()
            long_index[key] = idx.long()
        return long_index[key]

    n_vec = lead(64 << 20)  # 64 Mi elements: 256 MB per f32 operand
    rows = lead(65536)
    sm_rows = lead(4096)
    rs_rows = lead(12000)
    tp_rows = lead(8192)
    g_rows = lead(32768)  # gathered / scattered rows of 1024 f32 (4 KiB): 128 MB each way
    ce_rows = lead(4096)  # 4096 x 32000 bf16 logits: 262 MB
    rope_tokens = lead(16384)  # (T, 32, 128) bf16: 134 MB each way
    adam_n = lead(16 << 20)  # 16 Mi parameters: 26 B each (f32 p, m, v read and written, bf16 grad read)
    cases = {
        "axpby_f32": (axpby, lambda: ([randn(n_vec), randn(n_vec)], [nan(n_vec)], [1024]),
                      (math.ceil(n_vec / 1024), 1, 1), lambda i: 2.0 * i[0] - 3.0 * i[1], 1e-5),
        "axpby_bf16": (axpby, lambda: ([randn(n_vec, dtype=bf16), randn(n_vec, dtype=bf16)], [nan(n_vec, dtype=bf16)],
                                       [2048]), (math.ceil(n_vec / 2048), 1, 1),
                       # torch rounds 3y and the difference to bf16 separately, tileorch once at the store:
                       # one bf16 ulp apart at most (0.125 for |z| in [16, 32))
                       lambda i: 2.0 * i[0] - 3.0 * i[1], 0.13),
        "softmax_f16_4096x1000": (softmax, lambda: ([randn(sm_rows, 1000, dtype=f16)], [nan(sm_rows, 1000, dtype=f16)],
                                                    [1024]),
                                  (sm_rows, 1, 1), lambda i: torch.softmax(i[0], dim=1), 2e-3),
        "softmax_f16_rows_x1024": (softmax, lambda: ([randn(rows * 2, 1024, dtype=f16)],
                                                     [nan(rows * 2, 1024, dtype=f16)], [1024]),
                                   (rows * 2, 1, 1), lambda i: torch.softmax(i[0], dim=1), 2e-3),
        "layernorm_f16": (layernorm, lambda: ([randn(rows * 2, 1024, dtype=f16), randn(1024, dtype=f16),
                                               randn(1024, dtype=f16)], [nan(rows * 2, 1024, dtype=f16)], [1024]),
                          (rows * 2, 1, 1),
                          lambda i: torch.nn.functional.layer_norm(i[0], (1024,), i[1], i[2], 1e-5), 3e-2),
        "rmsnorm_f16": (rmsnorm, lambda: ([randn(rows * 2, 1024, dtype=f16), randn(1024, dtype=f16)],
                                          [nan(rows * 2, 1024, dtype=f16)], [1024]), (rows * 2, 1, 1),
                        lambda i: (i[0].float() * torch.rsqrt(i[0].float().pow(2).mean(1, keepdim=True) + 1e-6)
                                   * i[1].float()).half(), 3e-2),
        "row_sum_bf16_12000x10000": (row_sum, lambda: ([randn(rs_rows, 10000, dtype=bf16)], [nan(rs_rows)], [4, 1024]),
                                     (math.ceil(rs_rows / 4), 1, 1), lambda i: i[0].float().sum(1), 1e-1),
        "col_sum_f32": (col_sum, lambda: ([randn(rows, 1024)], [nan(1024)], [64, 128]), (8, 1, 1),
                        lambda i: i[0].sum(0), 1e-1),
        "argmax_f32": (argmax, lambda: ([randn(rows * 4, 256)], [torch.full((rows * 4,), -1, device="cuda",
                                                                            dtype=torch.int32)], [256]),
                       (rows * 4, 1, 1), lambda i: i[0].argmax(1).to(torch.int32), 0),
        # the same bytes in rows of 2 KiB (one program per warp loads 2 KiB already)
        "argmax_f32_x512": (argmax, lambda: ([randn(rows * 2, 512)], [torch.full((rows * 2,), -1, device="cuda",
                                                                                 dtype=torch.int32)], [512]),
                            (rows * 2, 1, 1), lambda i: i[0].argmax(1).to(torch.int32), 0),
        "cumsum_f32": (cumsum, lambda: ([randn(rows, 1024)], [nan(rows, 1024)], [1024]), (rows, 1, 1),
                       lambda i: i[0].cumsum(1), 1e-3),
        "transpose_f32": (transpose, lambda: ([randn(tp_rows, 8192)], [nan(8192, tp_rows)], [32, 64]),
                          (math.ceil(tp_rows / 32), 128, 1), lambda i: i[0].t().contiguous(), 0),
        # embedding lookup: rows of a table twice as tall as the output, random (repeats allowed);
        # 4 rows per program (16 KB of f32: 32 registers a thread, 4 CTAs of 512 threads per SM)
        "gather_rows_f32": (gather_rows, lambda: ([randn(2 * g_rows, 1024), index(g_rows, 2 * g_rows, False)],
                                                  [nan(g_rows, 1024)], [4, 1024]),
                            (math.ceil(g_rows / 4), 1, 1), lambda i: torch.index_select(i[0], 0, i[1]), 0),
        "gather_rows_bf16": (gather_rows, lambda: ([randn(4 * g_rows, 1024, dtype=bf16),
                                                    index(2 * g_rows, 4 * g_rows, False)],
                                                   [nan(2 * g_rows, 1024, dtype=bf16)], [4, 1024]),
                             (math.ceil(2 * g_rows / 4), 1, 1), lambda i: torch.index_select(i[0], 0, i[1]), 0),
        # out[idx[i], :] = src[i, :] by a permutation
        "scatter_rows_f32": (scatter_rows, lambda: ([randn(g_rows, 1024), index(g_rows, g_rows, True)],
                                                    [nan(g_rows, 1024)], [4, 1024]),
                             (math.ceil(g_rows / 4), 1, 1),
                             lambda i: torch.empty_like(i[0]).index_copy_(0, as_long(i[1]), i[0]), 0),
        "cross_entropy_bf16_v32000": (cross_entropy_fwd_mean_atomic, lambda: _ce_make(ce_rows, 32000, randn),
                                      (ce_rows, 1, 1), _ce_torch, 1e-3, {"check": _ce_check}),
        # the same program over 4096 columns: 4 tiles a row, under tileaa-hoist-online-softmax's 8 (the loop as
        # written, behind the trip-count branch)
        "cross_entropy_bf16_v4096": (cross_entropy_fwd_mean_atomic, lambda: _ce_make(ce_rows * 8, 4096, randn),
                                     (ce_rows * 8, 1, 1), _ce_torch, 1e-3, {"check": _ce_check}),
        # online max / sum-of-exp loops over a 32000-wide row (tileaa-hoist-online-softmax): a 1-D
        # logsumexp (f32, 262 MB) and a log-softmax that reads the row twice (bf16; bytes counted once)
        "logsumexp_f32_v32000": (logsumexp_online, lambda: ([randn(ce_rows // 2, 32000)], [nan(ce_rows // 2)], [1024]),
                                 (ce_rows // 2, 1, 1), lambda i: torch.logsumexp(i[0], 1), 1e-4),
        "log_softmax_bf16_v32000": (log_softmax_vocab_loop,
                                    lambda: ([randn(ce_rows, 32000, dtype=bf16)], [nan(ce_rows, 32000, dtype=bf16)],
                                             [1024]), (ce_rows, 1, 1),
                                    lambda i: torch.log_softmax(i[0].float(), 1).to(bf16), 0.07),
        "rope_bf16_llama": (rope_halves_table_rows, lambda: _rope_make(rope_tokens, randn, nan), (rope_tokens, 1, 1),
                            _rope_torch, 5e-2, {"check": _rope_check}),
        "adamw_f32_bf16_grads": (adamw_step_inplace, lambda: _adam_make(adam_n, randn), (math.ceil(adam_n / 1024), 1, 1),
                                 _adam_torch, 1e-5, {"check": _adam_check,
                                                     "moved": lambda i, o: 26 * i[0].numel()}),
        # probes (PROBE: only when --only names them, never in the targets' sweep; session 29, issue 21):
        # the cross entropy 4096 with its two atomics RELAXED (no fences) or gone (the row's loss stored), and
        # the log-softmax at 8192 / 16384 columns (same bytes): 2112 resident rows x 16 / 32 KB = 35 / 69 MB
        # between a row's two reads against the 32000-wide rows' 138 MB and a 50 MB L2
        "probe_ce_relaxed_bf16_v4096": (cross_entropy_fwd_relaxed_atomics,
                                        lambda: _ce_make(ce_rows * 8, 4096, randn), (ce_rows * 8, 1, 1), _ce_torch,
                                        1e-3, {"check": _ce_check}),
        "probe_ce_row_loss_bf16_v4096": (cross_entropy_fwd_row_loss, lambda: _ce_rows_make(ce_rows * 8, 4096, randn),
                                         (ce_rows * 8, 1, 1), _ce_torch, 1e-3, {"check": _ce_rows_check}),
        **{f"probe_log_softmax_bf16_v{v}": (log_softmax_vocab_loop,
                                            lambda v=v: ([randn(ce_rows * 32000 // v, v, dtype=bf16)],
                                                         [nan(ce_rows * 32000 // v, v, dtype=bf16)], [1024]),
                                            (ce_rows * 32000 // v, 1, 1),
                                            lambda i: torch.log_softmax(i[0].float(), 1).to(bf16), 0.07)
           for v in (8192, 16384)},
        # two-pass rows beyond the log-softmax (session 30, TILEORCH_ROW_SMEM_CACHE): the cross entropy forward and
        # backward (sweep 10: online lse, the loss, a second loop writing the bf16 gradient) and a softmax written
        # as three loops (max, sum, write: the row read three times as written)
        # (and at 8192 / 16384 columns, the same bytes: session 31's TILEORCH_ROW_SMEM_CACHE=auto keeps rows of at
        # most 32 KiB in shared memory)
        **{f"probe_ce_fwd_bwd_bf16_v{v}": (cross_entropy_fwd_bwd_vocab,
                                           lambda v=v: _ce_fwd_bwd_make(ce_rows * 32000 // v, v, randn),
                                           (ce_rows * 32000 // v, 1, 1), _ce_fwd_bwd_torch, 1e-2,
                                           {"check": _ce_fwd_bwd_check})
           for v in (8192, 16384, 32000)},
        **{f"probe_softmax_three_loops_bf16_v{v}": (softmax_three_loops,
                                                    lambda v=v: ([randn(ce_rows * 32000 // v, v, dtype=bf16) * 3],
                                                                 [nan(ce_rows * 32000 // v, v, dtype=bf16)], [1024]),
                                                    (ce_rows * 32000 // v, 1, 1),
                                                    lambda i: torch.softmax(i[0].float(), 1).to(bf16), 1e-2)
           for v in (8192, 16384, 32000)},
    }
    return cases


def _ce_fwd_bwd_make(rows: int, vocab: int, randn):
    """:func:`_ce_make`'s logits and labels for ``cross_entropy_fwd_bwd_vocab``: each row's loss and the bf16
    gradient of the mean out."""
    import torch

    (logits, labels), _, _ = _ce_make(rows, vocab, randn)
    count = int((labels != -100).sum())
    return [logits, labels], [torch.full((rows,), float("nan"), device="cuda"),
                              torch.full_like(logits, float("nan"))], [-100, 1.0 / count, 1024]


def _ce_fwd_bwd_torch(i):
    """torch's loss and gradient of the mean cross entropy, bf16 gradient (the timed baseline)."""
    import torch
    import torch.nn.functional as F

    x = i[0].float().requires_grad_(True)
    F.cross_entropy(x, i[1], ignore_index=-100).backward()
    return x.grad.to(torch.bfloat16)


def _ce_fwd_bwd_check(inputs, outputs, launch) -> float:
    """The row losses and the gradient against torch in f32 (after one launch)."""
    import torch
    import torch.nn.functional as F

    launch()
    torch.cuda.synchronize()
    x = inputs[0].float().requires_grad_(True)
    loss = F.cross_entropy(x, inputs[1], ignore_index=-100, reduction="none")
    count = int((inputs[1] != -100).sum())
    (loss.sum() / count).backward()
    return max((outputs[0] - loss.detach()).abs().max().item(),
               (outputs[1].float() - x.grad).abs().max().item() * count)


PROBE = "probe_"
"""Cases named so run only when ``--only`` names them (:func:`_sized`): measuring variants, not issue 21's
programs."""


def _ce_make(rows: int, vocab: int, randn):
    """Cross-entropy: bf16 logits, int64 labels (every 16th ``ignore_index``); lse, loss sum, count."""
    import torch

    logits = randn(rows, vocab, dtype=torch.bfloat16) * 3
    labels = torch.randint(0, vocab, (rows,), device="cuda")
    labels[::16] = -100
    outputs = [torch.full((rows,), float("nan"), device="cuda"), torch.zeros(1, device="cuda"),
               torch.zeros(1, device="cuda", dtype=torch.int32)]
    return [logits, labels], outputs, [-100, 1024]


def _ce_torch(i):
    import torch.nn.functional as F

    return F.cross_entropy(i[0], i[1], ignore_index=-100)


def _ce_check(inputs, outputs, launch) -> float:
    """The mean loss ``sum / count`` and the log-sum-exp against torch in f32 (after one launch)."""
    import torch
    import torch.nn.functional as F

    launch()
    torch.cuda.synchronize()
    logits = inputs[0].float()
    mean = F.cross_entropy(logits, inputs[1], ignore_index=-100)
    err_lse = (outputs[0] - torch.logsumexp(logits, 1)).abs().max().item()
    return max(err_lse, abs((outputs[1][0] / outputs[2][0]).item() - mean.item()))


def _ce_rows_make(rows: int, vocab: int, randn):
    """:func:`_ce_make`'s logits and labels for ``cross_entropy_fwd_row_loss``: lse and the row's loss out."""
    import torch

    (logits, labels), _, consts = _ce_make(rows, vocab, randn)
    nan = lambda: torch.full((rows,), float("nan"), device="cuda")  # noqa: E731
    return [logits, labels], [nan(), nan()], consts


def _ce_rows_check(inputs, outputs, launch) -> float:
    """The log-sum-exp and each row's loss (0 where ignored) against torch in f32 (after one launch)."""
    import torch
    import torch.nn.functional as F

    launch()
    torch.cuda.synchronize()
    logits = inputs[0].float()
    loss = F.cross_entropy(logits, inputs[1], ignore_index=-100, reduction="none")
    err_lse = (outputs[0] - torch.logsumexp(logits, 1)).abs().max().item()
    return max(err_lse, (outputs[1] - loss).abs().max().item())


def _rope_make(tokens: int, randn, nan):
    """Rotary: bf16 ``(T, 32, 128)``, int64 positions below 4096, f32 cos / sin tables ``(4096, 64)``."""
    import torch

    x = randn(tokens, 32, 128, dtype=torch.bfloat16)
    pos = torch.randint(0, 4096, (tokens,), device="cuda")
    ang = torch.arange(4096, device="cuda").float()[:, None] / 10000 ** (torch.arange(64, device="cuda") / 64)
    return [x, pos, ang.cos().contiguous(), ang.sin().contiguous()], [nan(tokens, 32, 128, dtype=torch.bfloat16)], \
        [32, 64]


def _rope_torch(i):
    """Hugging Face's formula in the activations' dtype (``cos[pos]``, ``rotate_half``)."""
    import torch

    x, pos, cos, sin = i
    c = torch.cat([cos[pos]] * 2, -1).to(x.dtype)[:, None, :]
    s = torch.cat([sin[pos]] * 2, -1).to(x.dtype)[:, None, :]
    return x * c + torch.cat([-x[..., 64:], x[..., :64]], -1) * s


def _rope_check(inputs, outputs, launch) -> float:
    import torch

    launch()
    torch.cuda.synchronize()
    x, pos, cos, sin = inputs
    xf, c, s = x.float(), cos[pos][:, None, :], sin[pos][:, None, :]
    want = torch.cat([xf[..., :64] * c - xf[..., 64:] * s, xf[..., 64:] * c + xf[..., :64] * s], -1)
    return (outputs[0].float() - want).abs().max().item()


ADAM = {"lr": 1e-3, "betas": (0.9, 0.999), "eps": 1e-8, "weight_decay": 0.01}
_adam_optimizers: dict = {}


def _adam_make(n: int, randn):
    """AdamW in place: f32 ``p``, bf16 ``g``, f32 ``m`` and ``v >= 0``; step 3 (the kernel's consts)."""
    import torch

    p, g = randn(n), randn(n, dtype=torch.bfloat16)
    m, v = randn(n) * 0.1, randn(n).abs() * 0.01
    return [p, g, m, v], [], [ADAM["lr"], *ADAM["betas"], ADAM["eps"], ADAM["weight_decay"], 3, 1024]


def _adam_torch(i):
    """One ``torch.optim.AdamW(fused=True)`` step of a copy of ``p`` (its grad ``g`` in f32, made once)."""
    import torch

    key = (i[0].data_ptr(), i[0].numel())
    if key not in _adam_optimizers:
        _adam_optimizers.clear()
        param = torch.nn.Parameter(i[0].clone())
        param.grad = i[1].float()
        _adam_optimizers[key] = torch.optim.AdamW([param], fused=True, **ADAM)
    _adam_optimizers[key].step()


def _adam_check(inputs, outputs, launch) -> float:
    """The kernel's step 3 against the AdamW formula in f32 torch from a snapshot of p, m, v."""
    import torch

    p0, m0, v0 = (t.clone() for t in (inputs[0], inputs[2], inputs[3]))
    launch()
    torch.cuda.synchronize()
    lr, (b1, b2), eps, wd, t = ADAM["lr"], ADAM["betas"], ADAM["eps"], ADAM["weight_decay"], 3
    g = inputs[1].float()
    m = b1 * m0 + (1 - b1) * g
    v = b2 * v0 + (1 - b2) * g * g
    p = p0 * (1 - lr * wd) - lr * (m / (1 - b1 ** t)) / ((v / (1 - b2 ** t)).sqrt() + eps)
    return max((inputs[0] - p).abs().max().item(), (inputs[2] - m).abs().max().item(),
               (inputs[3] - v).abs().max().item())


def _sized(size: str, small: bool, only: list[str] | None):
    """(label suffix, cases) of one ``--sizes`` entry, the cases named in ``only`` (all without):
    ``default`` -> the cases as they are (or / 16 with ``--small``), ``small``/``large`` -> each
    case scaled along its leading dimension to about ``SIZES[size]`` bytes."""
    base = {k: v for k, v in _cases(1 / 16 if small else 1.0).items()
            if (k in only if only else not k.startswith(PROBE))}
    if size == "default":
        return "", base
    return f"@{size}", {name: _cases(SIZES[size] / _bytes_of(case))[name] for name, case in base.items()}


def _moved(kernel, inputs, outputs, extra=None) -> int:
    """Bytes a case reads and writes once: every input and output, except that a row gather reads
    only the table rows it gathers (as many bytes as its output), not the whole table; a case's
    own ``moved`` (its ``extra``) where it has one."""
    if extra and "moved" in extra:
        return extra["moved"](inputs, outputs)
    arrays = inputs[1:] + outputs + outputs[:1] if kernel is gather_rows else inputs + outputs
    return sum(t.numel() * t.element_size() for t in arrays)


def _bytes_of(case) -> int:
    """:func:`_moved` of a case, measured on its default arrays."""
    import torch

    inputs, outputs, _ = case[1]()
    n = _moved(case[0], inputs, outputs, case[5] if len(case) > 5 else None)
    del inputs, outputs
    torch.cuda.empty_cache()
    return n


def _time_ms(fn, iters: int) -> float:
    """Milliseconds per call: the best of 3 event-timed batches of ``iters`` calls
    (:func:`tileorch.testing.timing.best_batch_ms`, shared with benchmarks/embedding_gather_probe.py)."""
    from tileorch.testing.timing import best_batch_ms

    return best_batch_ms(fn, iters)


def _run_cases(ns, setting: str | None, stream, copy_tbs: float) -> list[dict]:
    """Time the chosen cases under the compile switches ``setting`` (``VAR=VALUE,...``; None or
    empty: the environment as it is); the rows (named ``case[setting]`` under a setting)."""
    import torch

    import tileorch.cutile
    from tileorch.launchers.cutile import clear_caches

    saved = dict(os.environ)
    pairs = [kv.split("=", 1) for kv in (setting or "").split(",") if kv and kv != "default"]
    os.environ.update({k: v for k, v in pairs})
    clear_caches()  # programs compiled under another setting are not reused
    rows = []
    try:
        for size in ns.sizes:
            suffix, cases = _sized(size, ns.small, ns.only)
            for name, (kernel, make, grid, torch_fn, tol, *extra) in cases.items():
                rows.append(_run_case(ns, stream, copy_tbs, f"{name}{suffix}", size, setting, pairs,
                                      kernel, make, grid, torch_fn, tol, extra[0] if extra else {}))
    finally:
        os.environ.clear()
        os.environ.update(saved)
        clear_caches()
    return rows


def _run_case(ns, stream, copy_tbs, name, size, setting, pairs, kernel, make, grid, torch_fn, tol,
              extra=None) -> dict:
    """Check and time one case: tileorch, tileiras (unless ``--no-tileiras``), torch; its row
    (``extra``: see :func:`_cases`)."""
    import torch

    import tileorch.cutile

    label = name if setting is None else f"{name}[{setting if pairs else 'default'}]"
    inputs, outputs, consts = make()
    args = tuple(inputs + outputs + consts)
    nbytes = _moved(kernel, inputs, outputs, extra)
    row = {"case": label, "size": size, "bytes": nbytes, "grid": grid}
    ref = None if extra and "check" in extra else torch_fn(inputs)
    try:
        if ref is None:
            err = extra["check"](inputs, outputs, lambda: tileorch.cutile.launch(stream, grid, kernel, args))
            nan = any(bool(torch.isnan(t.float()).any()) for t in outputs)
        else:
            tileorch.cutile.launch(stream, grid, kernel, args)
            torch.cuda.synchronize()
            got = outputs[0]
            err = (got.float() - ref.float()).abs().max().item() if got.dtype != torch.int32 else \
                int((got != ref).sum().item())
            nan = bool(torch.isnan(got.float()).any())
        row["max_err"] = err
        row["correct"] = bool(err <= tol) and not nan
        row["tileorch_ms"] = _time_ms(lambda: tileorch.cutile.launch(stream, grid, kernel, args), ns.iters)
    except Exception as exc:  # noqa: BLE001 - reported per case
        row["tileorch_error"] = f"{type(exc).__name__}: {exc}"[:300]
    try:
        if not ns.no_tileiras:
            row["tileiras_ms"] = _time_ms(lambda: ct.launch(stream, grid, kernel, args), ns.iters)
    except Exception as exc:  # noqa: BLE001
        row["tileiras_error"] = f"{type(exc).__name__}: {exc}"[:300]
    row["torch_ms"] = _time_ms(lambda: torch_fn(inputs), ns.iters)
    for who in ("tileorch", "tileiras", "torch"):
        if f"{who}_ms" in row:
            row[f"{who}_tbs"] = nbytes / row[f"{who}_ms"] / 1e9
    if "tileorch_ms" in row:
        row["vs_torch"] = row["torch_ms"] / row["tileorch_ms"]
        row["vs_copy"] = row["tileorch_tbs"] / copy_tbs
        if "tileiras_ms" in row:
            row["vs_tileiras"] = row["tileiras_ms"] / row["tileorch_ms"]
    fmt = lambda k: f"{row[k]:.2f}" if k in row else "  -- "  # noqa: E731
    print(f"{label:32s} {nbytes / 1e6:8.0f} MB  tileorch {fmt('tileorch_tbs')} TB/s  "
          f"tileiras {fmt('tileiras_tbs')}  torch {fmt('torch_tbs')}  x torch {fmt('vs_torch')}  "
          f"x tileiras {fmt('vs_tileiras')}  "
          f"of copy {fmt('vs_copy')}  {'ok' if row.get('correct') else 'WRONG/FAILED'}", flush=True)
    del inputs, outputs, args, ref
    torch.cuda.empty_cache()
    return row


TARGETS = {"vs_tileiras": 1.0, "vs_torch": 0.9, "vs_copy": 0.85}
"""Issue 21's "Done when": each kernel >= 1.0x tileiras, >= 0.9x the torch call, >= 85% of the
same-run copy at 256 MB and above."""
COPY_TARGET_BYTES = 256e6


def summarize(rows: list[dict]) -> dict:
    """Per target: the cases it applies to, those that meet it and those that do not (with the
    ratio); a case that is wrong or failed meets none."""
    out = {"targets": dict(TARGETS, copy_min_bytes=COPY_TARGET_BYTES)}
    for key, bound in TARGETS.items():
        applies = [r for r in rows if key != "vs_copy" or r["bytes"] >= COPY_TARGET_BYTES]
        met = [r["case"] for r in applies if r.get("correct") and r.get(key, 0) >= bound]
        missed = {r["case"]: round(r[key], 3) if key in r and r.get("correct") else "wrong/failed/not run"
                  for r in applies if r["case"] not in met}
        out[key] = {"cases": len(applies), "met": met, "not_met": missed}
    out["all_met"] = [r["case"] for r in rows
                      if all(r["case"] in out[k]["met"] or (k == "vs_copy" and r["bytes"] < COPY_TARGET_BYTES)
                             for k in TARGETS)]
    return out


def print_summary(summary: dict) -> None:
    print(f"summary: targets >= {TARGETS['vs_tileiras']}x tileiras, >= {TARGETS['vs_torch']}x torch, "
          f">= {TARGETS['vs_copy']} of copy at >= {COPY_TARGET_BYTES / 1e6:.0f} MB")
    for key, what in (("vs_tileiras", "x tileiras"), ("vs_torch", "x torch"), ("vs_copy", "of copy")):
        s = summary[key]
        missed = ", ".join(f"{c} ({v})" for c, v in s["not_met"].items()) or "-"
        print(f"  {what:10s} met {len(s['met'])}/{s['cases']}; not met: {missed}")
    print(f"  all targets met: {len(summary['all_met'])} cases: {', '.join(summary['all_met']) or '-'}")


def main(argv=None) -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "memory_bound")
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--only", nargs="*")
    ap.add_argument("--small", action="store_true", help="default sizes / 16 (a quick run)")
    ap.add_argument("--sizes", type=lambda v: v.split(","), default=["default"],
                    help="comma-separated, in order: default (each case's own size), small (~64 MB moved), "
                         "large (~1 GB moved); default: default")
    ap.add_argument("--no-tileiras", action="store_true", help="skip cuTile's own compiler")
    ap.add_argument("--env", action="append", default=None,
                    help="VAR=VALUE[,VAR=VALUE...]: run the cases under these tileorch compile switches "
                         "(repeatable; 'default' = the defaults)")
    ns = ap.parse_args(argv)
    unknown = [x for x in ns.sizes if x != "default" and x not in SIZES]
    if unknown:
        ap.error(f"--sizes: unknown {unknown} (default, {', '.join(SIZES)})")
    started = time.perf_counter()
    stream = torch.cuda.current_stream()
    copy_src = torch.empty(256 << 20, dtype=torch.uint8, device="cuda")
    copy_dst = torch.empty_like(copy_src)
    copy_ms = _time_ms(lambda: copy_dst.copy_(copy_src), ns.iters)
    copy_tbs = 2 * copy_src.numel() / copy_ms / 1e9
    print(f"device copy (256 MB): {copy_tbs:.2f} TB/s")
    rows = []
    for setting in ns.env or [None]:
        rows += _run_cases(ns, setting, stream, copy_tbs)
    ns.out.mkdir(parents=True, exist_ok=True)
    summary = summarize(rows)
    result = {"device": torch.cuda.get_device_name(), "copy_tbs": copy_tbs, "sizes": ns.sizes, "cases": rows,
              "summary": summary}
    (ns.out / "memory_bound.json").write_text(json.dumps(result, indent=1))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, ax = plt.subplots(figsize=(max(12, 0.45 * len(rows)), 4))
        xs = range(len(rows))
        for off, who in ((-0.27, "tileorch"), (0, "tileiras"), (0.27, "torch")):
            ax.bar([x + off for x in xs], [r.get(f"{who}_tbs", 0) for r in rows], width=0.27, label=who)
        ax.axhline(copy_tbs, color="k", ls="--", label="device copy")
        ax.set_xticks(list(xs), [r["case"] for r in rows], rotation=30, ha="right", fontsize=8)
        ax.set_ylabel("TB/s")
        ax.legend()
        fig.tight_layout()
        fig.savefig(ns.out / "memory_bound.png", dpi=120)
    except ImportError:
        pass
    print_summary(summary)
    print(f"wrote {ns.out / 'memory_bound.json'} ({time.perf_counter() - started:.0f} s)")
    return 0 if all(r.get("correct") for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
