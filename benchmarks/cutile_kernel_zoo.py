"""cuTile kernels users write first (issue 14, item 4), as cuTile source; the cases that
benchmarks/cutile_kernels.py compiles with tileorch and runs against torch.

Each ``CASES`` entry: the kernel, its constants, the argument dtypes/ranks (for the signature),
``make(shape) -> (inputs, outputs)`` torch tensors, ``grid(shape)``, ``ref(inputs) -> outputs``
(torch, fp32 math) and the tolerance.
"""

import math

import cuda.tile as ct

from tileorch.testing.memory_programs import layernorm, softmax


@ct.kernel
def vec_add(a, b, c, tile: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(c, index=(i,), tile=ct.load(a, index=(i,), shape=(tile,)) + ct.load(b, index=(i,), shape=(tile,)))


@ct.kernel
def matmul(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    """The textbook cuTile GEMM (benchmarks/cutile_vs_tileiras.py: tileiras vs tileorch)."""
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk))
        b = ct.load(B, index=(k, bn), shape=(tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def row_sum(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    i = ct.bid(0)
    acc = ct.zeros((tm,), dtype=ct.float32)
    for j in range(ct.num_tiles(x, axis=1, shape=(tm, tn))):
        acc = acc + ct.sum(ct.load(x, index=(i, j), shape=(tm, tn)), axis=1)
    ct.store(y, index=(i,), tile=acc)


@ct.kernel
def transpose(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn))
    ct.store(y, index=(j, i), tile=ct.transpose(t))


@ct.kernel
def argmax(x, y, n: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, n))
    ct.store(y, index=(r,), tile=ct.argmax(t, axis=1))


@ct.kernel
def cumsum(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n))
    ct.store(y, index=(ct.bid(0), 0), tile=ct.cumsum(t, axis=1))


@ct.kernel
def gemm_bias_relu(A, B, bias, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    bv = ct.load(bias, index=(bn,), shape=(tn,)).astype(ct.float32)
    acc = ct.maximum(acc + ct.reshape(bv, (1, tn)), 0.0)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def bmm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn, bb = ct.bid(0), ct.bid(1), ct.bid(2)
    acc = ct.zeros((1, tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=2, shape=(1, tm, tk))):
        a = ct.load(A, index=(bb, bm, k), shape=(1, tm, tk))
        b = ct.load(B, index=(bb, k, bn), shape=(1, tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bb, bm, bn), tile=acc)


@ct.kernel
def int_math(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    u = ct.where(t > 3, t * 2 + 1, (t >> 1) & 7)
    ct.store(y, index=(ct.bid(0),), tile=u // 3 + t % 5)


class _Torch:
    """``torch`` imported on first use (building the cubins on a CPU machine needs no torch)."""

    def __getattr__(self, name):
        import torch as _t

        return getattr(_t, name)


torch = _Torch()


def _cases():
    def randn(*shape, dtype="f32"):
        return torch.randn(shape, device="cuda", dtype=torch.float32).to(_dt(dtype))

    def nan(*shape, dtype="f32"):
        return torch.full(shape, float("nan"), device="cuda", dtype=_dt(dtype))

    f16, bf16, f32, i32 = "f16", "bf16", "f32", "i32"
    cases = {}

    def case(name, kernel, consts, dtypes, shape, make, grid, ref, tol, torch_fn=None):
        cases[name] = dict(kernel=kernel, consts=consts, dtypes=dtypes, shape=shape, make=make, grid=grid,
                           ref=ref, tol=tol, torch_fn=torch_fn)

    n = 1_000_003
    case("vec_add", vec_add, [1024], [(f32, 1)] * 3, n,
         lambda s: ([randn(s), randn(s)], [nan(s)]), lambda s: (math.ceil(s / 1024), 1, 1),
         lambda i: [i[0] + i[1]], 1e-6, lambda i: torch.add(i[0], i[1]))
    case("softmax", softmax, [1024], [(f16, 2)] * 2, (4096, 1000),
         lambda s: ([randn(*s, dtype=f16)], [nan(*s, dtype=f16)]), lambda s: (s[0], 1, 1),
         lambda i: [torch.softmax(i[0].float(), dim=1)], 2e-3, lambda i: torch.softmax(i[0], dim=1))
    case("layernorm", layernorm, [1024], [(f16, 2), (f16, 1), (f16, 1), (f16, 2)], (4096, 1024),
         lambda s: ([randn(*s, dtype=f16), randn(s[1], dtype=f16), randn(s[1], dtype=f16)], [nan(*s, dtype=f16)]),
         lambda s: (s[0], 1, 1),
         lambda i: [torch.nn.functional.layer_norm(i[0].float(), (i[0].shape[1],), i[1].float(), i[2].float(), 1e-5)],
         2e-2, lambda i: torch.nn.functional.layer_norm(i[0], (i[0].shape[1],), i[1], i[2], 1e-5))
    case("row_sum", row_sum, [16, 256], [(f32, 2), (f32, 1)], (3000, 1500),
         lambda s: ([randn(*s)], [nan(s[0])]), lambda s: (math.ceil(s[0] / 16), 1, 1),
         lambda i: [i[0].sum(dim=1)], 1e-4, lambda i: i[0].sum(dim=1))
    case("transpose", transpose, [32, 64], [(f32, 2), (f32, 2)], (1000, 3000),
         lambda s: ([randn(*s)], [nan(s[1], s[0])]), lambda s: (math.ceil(s[0] / 32), math.ceil(s[1] / 64), 1),
         lambda i: [i[0].t()], 0.0, lambda i: i[0].t().contiguous())
    case("argmax", argmax, [256], [(f32, 2), (i32, 1)], (2048, 256),
         lambda s: ([randn(*s)], [torch.full((s[0],), -1, device="cuda", dtype=torch.int32)]), lambda s: (s[0], 1, 1),
         lambda i: [i[0].argmax(dim=1).to(torch.int32)], 0.0, lambda i: i[0].argmax(dim=1))
    case("cumsum", cumsum, [128], [(f32, 2), (f32, 2)], (512, 128),
         lambda s: ([randn(*s)], [nan(*s)]), lambda s: (s[0], 1, 1),
         lambda i: [i[0].cumsum(dim=1)], 1e-4, lambda i: i[0].cumsum(dim=1))
    case("int_math", int_math, [256], [(i32, 1), (i32, 1)], 100_000,
         lambda s: ([torch.randint(-50, 50, (s,), device="cuda", dtype=torch.int32)],
                    [torch.full((s,), -12345, device="cuda", dtype=torch.int32)]),
         lambda s: (math.ceil(s / 256), 1, 1),
         lambda i: [torch.div(torch.where(i[0] > 3, i[0] * 2 + 1, (i[0] >> 1) & 7), 3, rounding_mode="floor")
                    + torch.remainder(i[0], 5)], 0.0, None)
    case("gemm_bias_relu", gemm_bias_relu, [64, 64, 32], [(f16, 2), (f16, 2), (f16, 1), (f16, 2)], (1000, 520, 384),
         lambda s: ([randn(s[0], s[2], dtype=f16), randn(s[2], s[1], dtype=f16), randn(s[1], dtype=f16)],
                    [nan(s[0], s[1], dtype=f16)]),
         lambda s: (math.ceil(s[0] / 64), math.ceil(s[1] / 64), 1),
         lambda i: [torch.relu(i[0].float() @ i[1].float() + i[2].float())], 2e-2,
         lambda i: torch.relu(torch.addmm(i[2], i[0], i[1])))
    case("bmm_bf16", bmm, [64, 64, 32], [(bf16, 3), (bf16, 3), (f32, 3)], (4, 300, 200, 160),
         lambda s: ([randn(s[0], s[1], s[3], dtype=bf16), randn(s[0], s[3], s[2], dtype=bf16)],
                    [nan(s[0], s[1], s[2])]),
         lambda s: (math.ceil(s[1] / 64), math.ceil(s[2] / 64), s[0]),
         lambda i: [i[0].float() @ i[1].float()], 1e-3, lambda i: torch.bmm(i[0], i[1]))
    return cases


def _dt(name: str):
    return {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "i32": torch.int32}[name]
