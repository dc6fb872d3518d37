"""cuTile programs with pointer tiles and atomics (issue 21): gathers and scatters through index
tiles and scalar indices, atomic read-modify-writes (a histogram), compare-and-swap spin locks in
a ``while`` loop, and a split-K GEMM that serializes its partial sums with a lock and counts the
slices with a counter.  ``python cutile_pointer_programs.py OUT`` writes OUT/<name>.tileirbc for
each (cuTile's exporter, no GPU); used by test_cutile_pointer_programs.py.  The same kernels run
on the GPU in tests/gpu/test_pointer_tiles_gpu.py."""

import sys

import cuda.tile as ct
from cuda.tile.compilation import ArrayConstraint, CallingConvention, KernelSignature, export_kernel


def arr(dt, nd, idx=ct.int32):
    return ArrayConstraint(dt, nd, index_dtype=idx, stride_lower_bound_incl=0, alias_groups=(),
                           may_alias_internally=False, stride_constant=(None,) * (nd - 1) + (1,),
                           stride_divisible_by=(1,) * nd, shape_divisible_by=(1,) * nd, base_addr_divisible_by=16)


K = {}


def reg(name, *args):
    def d(f):
        K[name] = (f, list(args))
        return f
    return d


@ct.kernel
def histogram(x, bins, n: ct.Constant[int]):
    """Each program counts ``n`` values of ``x`` (bin numbers) into ``bins``."""
    v = ct.load(x, index=(ct.bid(0),), shape=(n,), padding_mode=ct.PaddingMode.ZERO)
    ones = ct.full((n,), 1, dtype=ct.int32)
    ct.atomic_add(bins, v, ones, memory_order=ct.MemoryOrder.RELAXED)


@ct.kernel
def histogram_f32(x, w, bins, n: ct.Constant[int]):
    """Weighted float histogram: ``bins[x[i]] += w[i]``."""
    v = ct.load(x, index=(ct.bid(0),), shape=(n,))
    ww = ct.load(w, index=(ct.bid(0),), shape=(n,))
    ct.atomic_add(bins, v, ww)


@ct.kernel
def gather_rows(src, idx, out, rows: ct.Constant[int], cols: ct.Constant[int]):
    """``out[r, :] = src[idx[r], :]`` for a block of ``rows`` rows (MoE-style row gather)."""
    b = ct.bid(0)
    r = ct.load(idx, index=(b,), shape=(rows,))
    c = ct.arange(cols, dtype=ct.int32)
    t = ct.gather(src, (r[:, None], c[None, :]), padding_value=0)
    ct.store(out, index=(b, 0), tile=t)


@ct.kernel
def scatter_rows(src, idx, out, rows: ct.Constant[int], cols: ct.Constant[int]):
    """``out[idx[r], :] = src[r, :]`` (a permutation's inverse)."""
    b = ct.bid(0)
    r = ct.load(idx, index=(b,), shape=(rows,))
    c = ct.arange(cols, dtype=ct.int32)
    t = ct.load(src, index=(b, 0), shape=(rows, cols))
    ct.scatter(out, (r[:, None], c[None, :]), t)


@ct.kernel
def gather_masked(src, idx, out, n: ct.Constant[int]):
    """``out[i] = src[idx[i]]`` where ``idx[i] >= 0``, else -1."""
    i = ct.load(idx, index=(ct.bid(0),), shape=(n,))
    t = ct.gather(src, i, mask=i >= 0, padding_value=-1.0)
    ct.store(out, index=(ct.bid(0),), tile=t)


@ct.kernel
def scalar_counter(counts, out):
    """Scalar forms: every program adds one to ``counts[bid % 4]`` under a lock and reads it."""
    i = ct.bid(0) % 4
    old = ct.atomic_add(counts, i, 1)
    cur = ct.gather(counts, i)
    ct.scatter(out, ct.bid(0), old + cur * 0)


@ct.kernel
def spin_lock(locks, counts, n_iter: ct.Constant[int]):
    """A lock taken with compare-and-swap in a ``while`` loop, a counter read and written under it
    (``gather``/``scatter`` of a scalar index), the lock released with an exchange."""
    slot = ct.bid(0) % 2
    for _ in range(n_iter):
        while ct.atomic_cas(locks, slot, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
            pass
        v = ct.gather(counts, slot)
        ct.scatter(counts, slot, v + 1)
        ct.atomic_xchg(locks, slot, 0, memory_order=ct.MemoryOrder.RELEASE)


@ct.kernel
def split_k_gemm(A, B, C, LOCKS, COUNTS, tm: ct.Constant[int], tn: ct.Constant[int], tk: ct.Constant[int],
                 splits: ct.Constant[int]):
    """C = A @ B with the K loop split over ``splits`` programs per output tile: each adds its
    partial product into C under the tile's lock; the first slice (by arrival, counted in
    COUNTS) stores instead of adding."""
    bm, bn, s = ct.bid(0), ct.bid(1), ct.bid(2)
    nk = ct.num_tiles(A, axis=1, shape=(tm, tk))
    per = (nk + splits - 1) // splits
    acc = ct.full((tm, tn), 0.0, dtype=ct.float32)
    for k in range(s * per, min(nk, (s + 1) * per)):
        a = ct.load(A, index=(bm, k), shape=(tm, tk), padding_mode=ct.PaddingMode.ZERO)
        b = ct.load(B, index=(k, bn), shape=(tk, tn), padding_mode=ct.PaddingMode.ZERO)
        acc = ct.mma(a, b, acc)
    lock = bm * ct.num_blocks(1) + bn
    while ct.atomic_cas(LOCKS, lock, 0, 1, memory_order=ct.MemoryOrder.ACQUIRE) == 1:
        pass
    count = ct.gather(COUNTS, lock)
    if count == 0:
        ct.store(C, index=(bm, bn), tile=acc)
    else:
        prev = ct.load(C, index=(bm, bn), shape=(tm, tn))
        ct.store(C, index=(bm, bn), tile=prev + acc)
    ct.scatter(COUNTS, lock, count + 1)
    ct.atomic_xchg(LOCKS, lock, 0, memory_order=ct.MemoryOrder.RELEASE)


@ct.kernel
def atomic_zoo(ints, floats, out_old, n: ct.Constant[int]):
    """Every RMW mode on 32-bit ints (and max/min of i32), float add; the old values of the add
    are stored."""
    i = ct.arange(n, dtype=ct.int32) % 8
    v = ct.arange(n, dtype=ct.int32)
    old = ct.atomic_add(ints, i, v, memory_scope=ct.MemoryScope.BLOCK)
    ct.atomic_max(ints, i + 8, v, memory_order=ct.MemoryOrder.RELEASE)
    ct.atomic_min(ints, i + 16, v, memory_order=ct.MemoryOrder.ACQUIRE)
    ct.atomic_and(ints, i + 24, v)
    ct.atomic_or(ints, i + 32, v)
    ct.atomic_xor(ints, i + 40, v)
    ct.atomic_xchg(ints, i + 48, v, memory_order=ct.MemoryOrder.RELAXED)
    ct.atomic_add(floats, i, v.astype(ct.float32))
    ct.store(out_old, index=(ct.bid(0),), tile=old)


@ct.kernel
def atomic_sys(counts):
    """A system-scope atomic add (refused by the SIMT lowering: LLVM would narrow its scope)."""
    ct.atomic_add(counts, 0, 1, memory_scope=ct.MemoryScope.SYS)


reg("atomic_sys", arr(ct.int32, 1))(atomic_sys)
reg("histogram", arr(ct.int32, 1), arr(ct.int32, 1), 256)(histogram)
reg("histogram_f32", arr(ct.int32, 1), arr(ct.float32, 1), arr(ct.float32, 1), 128)(histogram_f32)
reg("gather_rows", arr(ct.float16, 2), arr(ct.int32, 1), arr(ct.float16, 2), 16, 64)(gather_rows)
reg("scatter_rows", arr(ct.float32, 2), arr(ct.int32, 1), arr(ct.float32, 2), 16, 64)(scatter_rows)
reg("gather_masked", arr(ct.float32, 1), arr(ct.int32, 1), arr(ct.float32, 1), 128)(gather_masked)
reg("scalar_counter", arr(ct.int32, 1), arr(ct.int32, 1))(scalar_counter)
reg("spin_lock", arr(ct.int32, 1), arr(ct.int32, 1), 4)(spin_lock)
reg("split_k_gemm", arr(ct.float16, 2), arr(ct.float16, 2), arr(ct.float32, 2), arr(ct.int32, 1),
    arr(ct.int32, 1), 64, 64, 32, 4)(split_k_gemm)
reg("atomic_zoo", arr(ct.int32, 1), arr(ct.float32, 1), arr(ct.int32, 1), 128)(atomic_zoo)


if __name__ == "__main__":
    out = sys.argv[1]
    cc = CallingConvention.cutile_python_v1()
    only = sys.argv[2:]
    for name, (f, args) in K.items():
        if only and name not in only:
            continue
        export_kernel(f, [KernelSignature(args, cc)], f"{out}/{name}.tileirbc", gpu_code=None,
                      output_format="tileir_bytecode", bytecode_version="13.4")
