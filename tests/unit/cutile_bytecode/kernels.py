"""cuTile (cuda-tile 1.7) programs whose bytecode sits next to this file, with debug info.

Regenerate (the debug info records this file as ``kernels.py``, relative, so that
diagnostics read ``kernels.py:LINE:COL``)::

    cd tests/unit/cutile_bytecode && python -c "exec(compile(open('kernels.py').read(), 'kernels.py', 'exec'))"

The line numbers of the ops below are checked by tests/unit/test_cuda_tile_bytecode_debug.py:
edit this file only together with the bytecode.
"""
import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint, CallingConvention, KernelSignature, export_kernel


@ct.kernel
def add(a, b, c, tile: ct.Constant[int]):
    i = ct.bid(0)
    ct.store(c, index=(i,), tile=ct.load(a, index=(i,), shape=(tile,)) + ct.load(b, index=(i,), shape=(tile,)))


def scaled(t, k):
    return t * k + 1.0


@ct.kernel
def helper_call(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=scaled(t, 3.0))


@ct.kernel
def softmax(x, out, tn: ct.Constant[int]):
    row = ct.bid(0)
    t = ct.load(x, index=(row, 0), shape=(1, tn)).astype(ct.float32)
    e = ct.exp(t - ct.max(t, axis=1, keepdims=True))
    ct.store(out, index=(row, 0), tile=(e / ct.sum(e, axis=1, keepdims=True)).astype(out.dtype))


@ct.kernel
def gemm(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        a = ct.load(A, index=(bm, k), shape=(tm, tk))
        b = ct.load(B, index=(k, bn), shape=(tk, tn))
        acc = ct.mma(a, b, acc)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@ct.kernel
def layernorm(x, w, b, y, n: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, n)).astype(ct.float32)
    mean = ct.sum(t, axis=1, keepdims=True) / n
    d = t - mean
    var = ct.sum(d * d, axis=1, keepdims=True) / n
    inv = ct.rsqrt(var + 1e-5)
    ww = ct.load(w, index=(0,), shape=(n,)).astype(ct.float32)
    bb = ct.load(b, index=(0,), shape=(n,)).astype(ct.float32)
    ct.store(y, index=(r, 0), tile=(d * inv * ct.reshape(ww, (1, n)) + ct.reshape(bb, (1, n))).astype(y.dtype))


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
def reduce_sum(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.atomic_add(y, 0, ct.sum(t))


@ct.kernel
def argmax(x, y, n: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, n))
    ct.store(y, index=(r,), tile=ct.argmax(t, axis=1))


@ct.kernel
def gather(x, idx, y, n: ct.Constant[int]):
    i = ct.load(idx, index=(ct.bid(0),), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=ct.gather(x, i))


@ct.kernel
def cumsum(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(1, n))
    ct.store(y, index=(ct.bid(0), 0), tile=ct.cumsum(t, axis=1))


@ct.kernel
def where_int(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    u = ct.where(t > 3, t * 2 + 1, (t >> 1) & 7)
    ct.store(y, index=(ct.bid(0),), tile=u // 3 + t % 5)


@ct.kernel
def transpose(x, y, tm: ct.Constant[int], tn: ct.Constant[int]):
    i, j = ct.bid(0), ct.bid(1)
    t = ct.load(x, index=(i, j), shape=(tm, tn))
    ct.store(y, index=(j, i), tile=ct.transpose(t))


@ct.kernel
def whileloop(x, n: ct.Constant[int]):
    i = 0
    s = ct.zeros((n,), dtype=ct.int32)
    while i < 10:
        s = s + i
        if i == 7:
            break
        i += 1
    ct.store(x, index=(ct.bid(0),), tile=s)


def arr(dt, nd):
    return ArrayConstraint(dt, nd, index_dtype=ct.int32, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=(None,) * (nd - 1) + (1,),
                           stride_divisible_by=(1,) * nd, shape_divisible_by=(1,) * nd, base_addr_divisible_by=16)


PROGRAMS = {
    "add": (add, [arr(ct.float32, 1)] * 3 + [256]),
    "helper_call": (helper_call, [arr(ct.float32, 1)] * 2 + [128]),
    "softmax": (softmax, [arr(ct.float16, 2)] * 2 + [1024]),
    "gemm": (gemm, [arr(ct.float16, 2)] * 3 + [128, 128, 64]),
    "layernorm": (layernorm, [arr(ct.float16, 2), arr(ct.float16, 1), arr(ct.float16, 1), arr(ct.float16, 2), 1024]),
    "bmm": (bmm, [arr(ct.bfloat16, 3), arr(ct.bfloat16, 3), arr(ct.float32, 3), 64, 64, 32]),
    "reduce_sum": (reduce_sum, [arr(ct.float32, 1), arr(ct.float32, 1), 1024]),
    "argmax": (argmax, [arr(ct.float32, 2), arr(ct.int32, 1), 256]),
    "gather": (gather, [arr(ct.float32, 1), arr(ct.int32, 1), arr(ct.float32, 1), 128]),
    "cumsum": (cumsum, [arr(ct.float32, 2), arr(ct.float32, 2), 128]),
    "where_int": (where_int, [arr(ct.int32, 1), arr(ct.int32, 1), 256]),
    "transpose": (transpose, [arr(ct.float32, 2), arr(ct.float32, 2), 32, 64]),
    "whileloop": (whileloop, [arr(ct.int32, 1), 16]),
}

if __name__ == "__main__":
    import sys

    # optional arguments VERSION DIR NAME...: v13_5/ is the command above then "13.5 v13_5 add gemm reduce_sum
    # helper_call" (the line numbers above must not move: the bytecode records them)
    version, out = (sys.argv[1], sys.argv[2]) if len(sys.argv) > 2 else ("13.4", ".")
    if version == "13.5":  # cuTile 1.7 writes 13.5 only with its development features on
        import cuda.tile._compile as _cutile_compile

        _cutile_compile.dev_features_enabled = lambda: True
    cc = CallingConvention.cutile_python_v1()
    for name, (kernel, args) in PROGRAMS.items():
        if len(sys.argv) > 3 and name not in sys.argv[3:]:
            continue
        export_kernel(kernel, [KernelSignature(args, cc)], f"{out}/{name}.tileirbc", gpu_code=None,
                      output_format="tileir_bytecode", bytecode_version=version)
