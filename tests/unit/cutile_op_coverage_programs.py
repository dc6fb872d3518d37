"""cuTile programs of issue 21 (op coverage): fp8 / small-integer / tf32 element types, layernorm
and RMSNorm over 1-D rows (reductions to rank-0 tiles), reshape / permute / broadcast / extract /
cat of several ranks, tile compares, a GEMM with a where() epilogue, and two element types the
SIMT lowering refuses (f4E2M1FN, f8E8M0FNU).  ``python cutile_op_coverage_programs.py OUT``
writes OUT/<name>.tileirbc for each (cuTile's exporter, no GPU); used by
test_cutile_op_coverage.py.  Each SIMT program here ran on an H200 through
tileorch.cutile.launch and matched torch (fp8: all 256 codes)."""

import sys

import cuda.tile as ct
from cuda.tile.compilation import export_kernel, KernelSignature, ArrayConstraint, CallingConvention


def arr(dt, nd, idx=ct.int32):
    return ArrayConstraint(dt, nd, index_dtype=idx, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=(None,)*(nd-1)+(1,),
                           stride_divisible_by=(1,)*nd, shape_divisible_by=(1,)*nd, base_addr_divisible_by=16)


cc = CallingConvention.cutile_python_v1()
K = {}


def reg(name, *args):
    def d(f):
        K[name] = (f, list(args)); return f
    return d


@reg("f8_e4m3_roundtrip", arr(ct.float8_e4m3fn, 1), arr(ct.float32, 1), arr(ct.float8_e4m3fn, 1), 256)
@ct.kernel
def f8a(x, y, z, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    f = t.astype(ct.float32)
    ct.store(y, index=(ct.bid(0),), tile=f)
    ct.store(z, index=(ct.bid(0),), tile=(f * 2.0).astype(ct.float8_e4m3fn))


@reg("f8_e5m2_roundtrip", arr(ct.float8_e5m2, 1), arr(ct.float16, 1), arr(ct.float8_e5m2, 1), 256)
@ct.kernel
def f8b(x, y, z, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    f = t.astype(ct.float16)
    ct.store(y, index=(ct.bid(0),), tile=f)
    ct.store(z, index=(ct.bid(0),), tile=(f + f).astype(ct.float8_e5m2))


@reg("f8_bf16", arr(ct.bfloat16, 1), arr(ct.float8_e4m3fn, 1), arr(ct.bfloat16, 1), 256)
@ct.kernel
def f8c(x, y, z, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    q = t.astype(ct.float8_e4m3fn)
    ct.store(y, index=(ct.bid(0),), tile=q)
    ct.store(z, index=(ct.bid(0),), tile=q.astype(ct.bfloat16))


@reg("f8_e4m3_to_e5m2", arr(ct.float8_e4m3fn, 1), arr(ct.float8_e5m2, 1), 256)
@ct.kernel
def f8d(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=t.astype(ct.float8_e5m2))


@reg("f8_copy", arr(ct.float8_e4m3fn, 2), arr(ct.float8_e4m3fn, 2), 16, 64)
@ct.kernel
def f8e(x, y, m: ct.Constant[int], n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(m, n))
    ct.store(y, index=(0, ct.bid(0)), tile=ct.transpose(t))


@reg("ints", arr(ct.int8, 1), arr(ct.int16, 1), arr(ct.int64, 1), arr(ct.bool_, 1), arr(ct.int8, 1), 256)
@ct.kernel
def ints(a, b, c, d, o, n: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(n,))
    y = ct.load(b, index=(i,), shape=(n,))
    z = ct.load(c, index=(i,), shape=(n,))
    m = ct.load(d, index=(i,), shape=(n,))
    s = x.astype(ct.int64) + y.astype(ct.int64) + z
    s = ct.where(m, s, -s)
    ct.store(c, index=(i,), tile=s)
    ct.store(o, index=(i,), tile=s.astype(ct.int8))
    ct.store(b, index=(i,), tile=(s > 0).astype(ct.int16))
    ct.store(d, index=(i,), tile=s > 3)


@reg("uints", arr(ct.uint8, 1), arr(ct.uint16, 1), arr(ct.float32, 1), 256)
@ct.kernel
def uints(a, b, o, n: ct.Constant[int]):
    i = ct.bid(0)
    x = ct.load(a, index=(i,), shape=(n,))
    y = ct.load(b, index=(i,), shape=(n,))
    ct.store(o, index=(i,), tile=x.astype(ct.float32) + y.astype(ct.float32))
    ct.store(b, index=(i,), tile=(x.astype(ct.uint16) * 3) & 255)


@reg("ints_reduce", arr(ct.int8, 2), arr(ct.int64, 1), arr(ct.int16, 1), 4, 64)
@ct.kernel
def ints_reduce(a, o, p, m: ct.Constant[int], n: ct.Constant[int]):
    x = ct.load(a, index=(ct.bid(0), 0), shape=(m, n))
    ct.store(o, index=(ct.bid(0),), tile=ct.sum(x.astype(ct.int64), axis=1))
    ct.store(p, index=(ct.bid(0),), tile=ct.max(x, axis=1).astype(ct.int16))


@reg("f64", arr(ct.float64, 1), arr(ct.float32, 1), 256)
@ct.kernel
def f64(a, o, n: ct.Constant[int]):
    x = ct.load(a, index=(ct.bid(0),), shape=(n,))
    ct.store(o, index=(ct.bid(0),), tile=(x * 2.0).astype(ct.float32))


@reg("tf32", arr(ct.float32, 1), arr(ct.float32, 1), 256)
@ct.kernel
def tf32(a, o, n: ct.Constant[int]):
    x = ct.load(a, index=(ct.bid(0),), shape=(n,))
    ct.store(o, index=(ct.bid(0),), tile=x.astype(ct.tfloat32).astype(ct.float32))


@reg("layernorm1d", arr(ct.float16, 2), arr(ct.float16, 1), arr(ct.float16, 1), arr(ct.float16, 2), 1024)
@ct.kernel
def layernorm1d(x, w, b, y, n: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(1, n)).astype(ct.float32)
    t = ct.reshape(t, (n,))
    mean = ct.sum(t) / n
    d = t - mean
    var = ct.sum(d * d) / n
    inv = ct.rsqrt(var + 1e-5)
    ww = ct.load(w, index=(0,), shape=(n,)).astype(ct.float32)
    bb = ct.load(b, index=(0,), shape=(n,)).astype(ct.float32)
    o = d * inv * ww + bb
    ct.store(y, index=(r, 0), tile=ct.reshape(o, (1, n)).astype(y.dtype))


@reg("layernorm2d", arr(ct.bfloat16, 2), arr(ct.bfloat16, 1), arr(ct.bfloat16, 1), arr(ct.bfloat16, 2), 4, 256)
@ct.kernel
def layernorm2d(x, w, b, y, m: ct.Constant[int], n: ct.Constant[int]):
    r = ct.bid(0)
    t = ct.load(x, index=(r, 0), shape=(m, n)).astype(ct.float32)
    mean = ct.sum(t, axis=1, keepdims=True) / n
    d = t - mean
    var = ct.sum(d * d, axis=1, keepdims=True) / n
    inv = ct.rsqrt(var + 1e-5)
    ww = ct.load(w, index=(0,), shape=(n,)).astype(ct.float32)
    bb = ct.load(b, index=(0,), shape=(n,)).astype(ct.float32)
    ct.store(y, index=(r, 0), tile=(d * inv * ww + bb).astype(y.dtype))


@reg("rmsnorm1d", arr(ct.float16, 1), arr(ct.float16, 1), arr(ct.float16, 1), 512)
@ct.kernel
def rmsnorm1d(x, w, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,)).astype(ct.float32)
    inv = ct.rsqrt(ct.sum(t * t) / n + 1e-6)
    ww = ct.load(w, index=(0,), shape=(n,)).astype(ct.float32)
    ct.store(y, index=(ct.bid(0),), tile=(t * inv * ww).astype(y.dtype))


@reg("reshape_unit", arr(ct.float32, 2), arr(ct.float32, 3), 1, 64)
@ct.kernel
def reshape_unit(x, y, m: ct.Constant[int], n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(m, n))
    u = ct.reshape(t, (n,))
    v = ct.reshape(u, (1, 1, n))
    ct.store(y, index=(ct.bid(0), 0, 0), tile=v)


@reg("reshape_any", arr(ct.float32, 2), arr(ct.float32, 3), 8, 32)
@ct.kernel
def reshape_any(x, y, m: ct.Constant[int], n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(m, n))
    u = ct.reshape(t, (4, 4, 16))
    ct.store(y, index=(ct.bid(0), 0, 0), tile=u + 1.0)


@reg("permute3", arr(ct.float32, 3), arr(ct.float32, 3), 2, 8, 16)
@ct.kernel
def permute3(x, y, a: ct.Constant[int], b: ct.Constant[int], c: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0, 0), shape=(a, b, c))
    ct.store(y, index=(0, 0, ct.bid(0)), tile=ct.permute(t, (2, 1, 0)))


@reg("permute4", arr(ct.float16, 4), arr(ct.float16, 4), 2, 4, 8, 16)
@ct.kernel
def permute4(x, y, a: ct.Constant[int], b: ct.Constant[int], c: ct.Constant[int], d: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0, 0, 0), shape=(a, b, c, d))
    ct.store(y, index=(0, 0, 0, ct.bid(0)), tile=ct.permute(t, (1, 3, 2, 0)))


@reg("broadcast3", arr(ct.float32, 1), arr(ct.float32, 3), 16)
@ct.kernel
def broadcast3(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    u = ct.broadcast_to(ct.reshape(t, (1, n, 1)), (4, n, 8))
    ct.store(y, index=(ct.bid(0), 0, 0), tile=u)


@reg("broadcast_scalar", arr(ct.float32, 2), 16)
@ct.kernel
def broadcast_scalar(y, n: ct.Constant[int]):
    s = ct.bid(0) * 1.0
    ct.store(y, index=(ct.bid(0), 0), tile=ct.full((4, n), 0.0, ct.float32) + s)


@reg("extract2", arr(ct.float32, 2), arr(ct.float32, 2), 32, 64)
@ct.kernel
def extract2(x, y, m: ct.Constant[int], n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0), 0), shape=(m, n))
    u = ct.extract(t, index=(1, ct.bid(1)), shape=(16, 16))
    ct.store(y, index=(ct.bid(0), ct.bid(1)), tile=u)


@reg("extract3", arr(ct.float32, 3), arr(ct.float32, 3), 4)
@ct.kernel
def extract3(x, y, n: ct.Constant[int]):
    t = ct.load(x, index=(0, 0, 0), shape=(2, n, 8))
    u = ct.extract(t, index=(1, 0, 1), shape=(1, n, 4))
    ct.store(y, index=(0, 0, 0), tile=u)


@reg("cat1", arr(ct.float32, 1), arr(ct.float32, 1), arr(ct.float32, 1), 64)
@ct.kernel
def cat1(x, z, y, n: ct.Constant[int]):
    a = ct.load(x, index=(ct.bid(0),), shape=(n,))
    b = ct.load(z, index=(ct.bid(0),), shape=(n,))
    ct.store(y, index=(ct.bid(0),), tile=ct.cat((a, b), axis=0))


@reg("cat3", arr(ct.float16, 3), arr(ct.float16, 3), 2, 4, 8)
@ct.kernel
def cat3(x, y, a: ct.Constant[int], b: ct.Constant[int], c: ct.Constant[int]):
    t = ct.load(x, index=(0, 0, 0), shape=(a, b, c))
    ct.store(y, index=(0, 0, 0), tile=ct.cat((t, t * 2.0), axis=1))


@reg("gemm_where", arr(ct.float16, 2), arr(ct.float16, 2), arr(ct.float16, 2), 128, 128, 64)
@ct.kernel
def gemm_where(A, B, C, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int]):
    bm, bn = ct.bid(0), ct.bid(1)
    acc = ct.zeros((tm, tn), dtype=ct.float32)
    for k in range(ct.num_tiles(A, axis=1, shape=(tm, tk))):
        acc = ct.mma(ct.load(A, index=(bm, k), shape=(tm, tk)), ct.load(B, index=(k, bn), shape=(tk, tn)), acc)
    acc = ct.where(acc > 0.0, acc, acc * 0.1)
    ct.store(C, index=(bm, bn), tile=acc.astype(C.dtype))


@reg("cmp_store", arr(ct.float32, 1), arr(ct.bool_, 1), arr(ct.int32, 1), 256)
@ct.kernel
def cmp_store(x, m, o, n: ct.Constant[int]):
    t = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ct.store(m, index=(ct.bid(0),), tile=t > 0.0)
    ct.store(o, index=(ct.bid(0),), tile=(t > 1.0).astype(ct.int32))


@reg("f4", arr(ct.float32, 1), arr(ct.float32, 1), 256)
@ct.kernel
def f4(a, o, n: ct.Constant[int]):
    x = ct.load(a, index=(ct.bid(0),), shape=(n,))
    ct.store(o, index=(ct.bid(0),), tile=x.astype(ct.float4_e2m1fn).astype(ct.float32))


@reg("e8m0", arr(ct.float32, 1), arr(ct.float32, 1), 256)
@ct.kernel
def e8m0(a, o, n: ct.Constant[int]):
    x = ct.load(a, index=(ct.bid(0),), shape=(n,))
    ct.store(o, index=(ct.bid(0),), tile=ct.astype(x, ct.float8_e8m0fnu, rounding_mode=ct.RoundingMode.RZ).astype(ct.float32))


if __name__ == "__main__":
    out = sys.argv[1]
    for name, (f, args) in K.items():
        export_kernel(f, [KernelSignature(args, cc)], f"{out}/{name}.tileirbc", gpu_code=None,
                      output_format="tileir_bytecode", bytecode_version="13.4")
