"""fp8 GEMMs with a long K for two-level accumulation (``TILEORCH_FP8_PROMOTE_INTERVAL``,
transforms/tileas/fp8_promotion.py): cuTile programs as a user writes them (acc = ct.mma(a, b, acc) over the K
tiles, f32 out), in the sizes tests/unit/test_fp8_promotion_emulated.py runs on the PTX emulator and
benchmarks/session39_fp8acc.sh on a GPU.  :func:`with_k` gives an entry at another K (the K tail of the
interval's tests).  Importing it needs ``cuda.tile``.
"""

from __future__ import annotations

from dataclasses import replace

import cuda.tile as ct

from tileorch.testing.user_programs import UserProgram, registrar

PROGRAMS: dict[str, UserProgram] = {}
_add = registrar(PROGRAMS)
ConstInt = ct.Constant[int]
ZERO = ct.PaddingMode.ZERO
F32, E4M3, E5M2 = "float32", "float8_e4m3fn", "float8_e5m2"


@ct.kernel
def fp8_long_k_f32_out(A, Bt, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """fp8 x fp8 -> f32 over a long K, B given as [N, K] (nn.Linear's weight; the K-major operand fp8 WGMMA
    reads) and transposed in the program."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bt, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.transpose(b), acc)
    ct.store(C, index=(bm, bn), tile=acc)


@ct.kernel
def fp8_long_k_fast_acc(A, Bt, C, TM: ConstInt, TN: ConstInt, TK: ConstInt):
    """:func:`fp8_long_k_f32_out` asking for fast accumulation (``ct.mma(..., use_fast_acc=True)``, cuTile's
    ``fast_acc`` of ``mmaf``): the WGMMAs sum the whole K loop, not promoted."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((TM, TN), dtype=ct.float32)
    for k in range(ct.cdiv(A.shape[1], TK)):
        a = ct.load(A, index=(bm, k), shape=(TM, TK), padding_mode=ZERO)
        b = ct.load(Bt, index=(bn, k), shape=(TN, TK), padding_mode=ZERO)
        acc = ct.mma(a, ct.transpose(b), acc, use_fast_acc=True)
    ct.store(C, index=(bm, bn), tile=acc)


def _spec(m: int, n: int, k: int, dt: str) -> list:
    return [((m, k), dt), ((n, k), dt), ((m, n), F32), 128, 128, 128]


_add("fp8_e4m3_long_k_f32_out", fp8_long_k_f32_out, _spec(128, 128, 1000, E4M3), (1, 1), "gemm", outputs=(2,))
_add("fp8_e5m2_long_k_f32_out", fp8_long_k_f32_out, _spec(128, 128, 1000, E5M2), (1, 1), "gemm", outputs=(2,))
_add("fp8_e4m3_long_k_fast_acc", fp8_long_k_fast_acc, _spec(128, 128, 1000, E4M3), (1, 1), "gemm", outputs=(2,))


def with_k(name: str, k: int) -> UserProgram:
    """Entry ``name`` with K = ``k``."""
    p = PROGRAMS[name]
    (m, _), dt = p.spec[0]
    (n, _), _ = p.spec[1]
    return replace(p, spec=_spec(m, n, k, dt))
