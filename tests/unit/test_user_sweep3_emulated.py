"""Third user sweep (``tileorch.testing.user_programs3``): the programs the tensor-core tiers take,
their PTX run on the CPU by ``tileorch.testing.ptx_emulator`` against numpy float64 on the same
inputs, outputs NaN-prefilled.  GEMMs (every CTA of the persistent grid through
``tileorch.testing.gemm_emulation.run_gemm``, the launcher's own problem derivation
``gemm_problem_batched``, the direct epilogue, one CTA per cluster) and chained-dots programs
(attention, a two-GEMM MLP, SwiGLU and three-gate MLPs: several first dots sharing x).  f16
operands only: the emulator's WGMMA is f16 (bf16, tf32, int8 and fp8 programs run on the GPU:
tests/gpu/test_user_sweep3_gpu.py).

Found by this sweep (each failed before its fix): ``C += A @ B`` with C loaded as the
accumulator's start computed ``A @ B`` (the start dropped); ``Array.slice`` operands multiplied
the whole arrays.  Needs cuda-tile."""

from __future__ import annotations

import dataclasses
import importlib.util
import math

import numpy as np
import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

RNG = np.random.default_rng(311)
NP = {"float16": np.float16, "float32": np.float32, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8}  # fp8: bytes


def _f32_bits(x: float) -> int:
    return int(np.float32(x).view(np.uint32))


def _arrays(p, inputs: dict) -> dict:
    """Each array argument: a copy of its input, or NaN-filled."""
    return {i: np.array(inputs[i], copy=True) if i in inputs else
            np.full(s[0], 0x7F if s[1].startswith("float8") else np.nan, NP[s[1]])  # (0x7F: NaN in e4m3 and e5m2)
            for i, s in enumerate(p.spec) if isinstance(s, tuple)}


def _described(p, bases: dict):
    from tileorch.launchers import cutile as rc
    from tileorch.testing.export import FakeDeviceArray

    args = rc.describe_arguments(p.kernel, tuple(FakeDeviceArray(bases[i], s[0]) if isinstance(s, tuple) else s
                                                 for i, s in enumerate(p.spec)))
    return [dataclasses.replace(a, dtype=p.spec[a.position][1]) if isinstance(a, rc.ArrayArg) else a for a in args]


def _tile_params(p, args, bases) -> list:
    """The tile program's parameters: per array base, shape, strides; per runtime scalar its bits."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.gemm_emulation import array_params

    out = []
    for d, s in zip(args, p.spec):
        if isinstance(d, rc.ConstantArg):
            continue
        if isinstance(s, tuple):
            out += array_params(bases[d.position], s[0])
        else:
            out.append(_f32_bits(s) if isinstance(s, float) else int(s))
    return out


def _gemm(name: str, inputs: dict, program=None, config: str = "cluster_m=1,epilogue=direct", problem=None,
          more_params=()):
    """Run GEMM program ``name`` (compiled with the direct epilogue and one CTA per cluster, the program's
    tile kept) on the emulator: returns its arrays after the run.  ``program``: the entry to run in
    place of ``PROGRAMS[name]``; ``config``: the compile override; ``problem(cfg, m, n, k)``: the
    scheduler's (M, N, K, L) when not the launcher's (m, n, k, 1); ``more_params``: parameters after
    the tile program's (a program-grid kernel's launch grid)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.gemm_emulation import compile_cutile, run_gemm
    from tileorch.testing.user_programs3 import PROGRAMS

    p = program or PROGRAMS[name]
    prog = compile_cutile(p.kernel, p.spec, name, config=config)  # the emulator's subset
    assert prog.kind == "gemm", prog.remarks
    arrays = _arrays(p, inputs)
    bases = {i: (i + 1) << 32 for i in arrays}
    args = _described(p, bases)
    a, b, c, m, n, k, batch = rc.gemm_problem_batched(prog, args)
    batch = batch if getattr(prog.gemm_config, "batched", False) else 1  # (the other operands' matrices)
    more_b_args = rc.more_b_operands(prog, args, b, batch)  # dots sharing A: their Bs
    more_b = [x.position for x in more_b_args]
    more_a_args = rc.more_a_operands(prog, args, a, batch)  # dots with an A each: their other As
    more_a = [x.position for x in more_a_args]
    seg_k = rc.segment_ks(prog, more_a_args, more_b_args)  # (K segments: each later pair's own K)
    lora = getattr(prog.gemm_config, "lora_rank", 0)  # (E's K: the low-rank branch's N, as the launcher reads it)
    e = rc.epi_operand(prog, args, more_b_args[0] if lora else b, c)  # a second dot on the accumulator: its B
    tile = (_tile_params(p, args, bases) if prog.epilogue_ops else []) + list(more_params)
    # (a gathered A, GemmConfig.a_gather, is read by the consumers' own loads: its array is in memory, as it is)
    gathered = getattr(prog.gemm_config, "a_gather", False)
    tma_only = (*(() if gathered else (a.position,)), b.position, *more_b, *more_a, *([e.position] if e else []))
    # (a 0-d array: its one element, as a 1-element view, since numpy views no 0-d array as another item size)
    memory = [(bases[i], np.atleast_1d(arrays[i]).view(np.uint8).reshape(-1), f"arg{i}") for i in arrays
              if i not in tma_only]
    views = getattr(prog, "operand_views", None) or {}
    av = _matrix_of(arrays[a.position], a, bases, "a" in views)
    bv = _matrix_of(arrays[b.position], b, bases, "b" in views)
    if getattr(prog.gemm_config, "transpose_a", False):  # the launcher's K-major copy of A (A^T given [K, M])
        av = np.ascontiguousarray(np.swapaxes(av, -1, -2))
    if getattr(prog.gemm_config, "transpose_b", False):  # the launcher's K-major copy of an N-major B (8-bit)
        bv = np.ascontiguousarray(np.swapaxes(bv, -1, -2))
    errors = run_gemm(prog, av, bv, bases[c.position], (m, n, k), tile, memory,
                      problem(prog.gemm_config, m, n, k) if problem else None, more_b=[arrays[i] for i in more_b],
                      more_a=[arrays[i] for i in more_a], seg_k=seg_k,
                      **({"epi": arrays[e.position]} if e else {}))
    assert not errors, errors[:4]
    return arrays


def _matrix_of(array: np.ndarray, x, bases: dict, viewed: bool) -> np.ndarray:
    """The array the launcher's operand ``x`` reads: ``array`` itself, or, for an operand a host view picks
    (``viewed``: ``W[e]``, :mod:`tileorch.launchers.operand_views`), the one matrix of it ``x`` starts at."""
    if not viewed:
        return array
    offset = (x.ptr - bases[x.position]) // array.itemsize
    return array.reshape(-1)[offset:offset + int(np.prod(x.shape))].reshape(x.shape)


def _h(*shape):
    return RNG.standard_normal(shape).astype(np.float16)


def _mm(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


GEMMS = {
    "mm_tiled_view": lambda: ({0: _h(200, 192), 1: _h(192, 320)}, lambda i: _mm(i[0], i[1]), 2e-2),
    "mm_load_order_bt": lambda: ({0: _h(256, 192), 1: _h(256, 192)}, lambda i: _mm(i[0], i[1].T), 6e-2),
    "mm_divmod_grid": lambda: ({0: _h(256, 128), 1: _h(128, 384)}, lambda i: _mm(i[0], i[1]), 2e-2),
    "mm_grid_nm": lambda: ({0: _h(384, 128), 1: _h(128, 256)}, lambda i: _mm(i[0], i[1]), 2e-2),
    "mm_accumulate_into_c": lambda: ({0: _h(128, 128), 1: _h(128, 256),
                                      2: RNG.standard_normal((128, 256)).astype(np.float32)},
                                     lambda i: _mm(i[0], i[1]) + i[2], 1e-4),
    "mm_leaky_relu": lambda: ({0: _h(128, 128), 1: _h(128, 256)},
                              lambda i: (lambda h: np.where(h > 0, h, 0.01 * h))(_mm(i[0], i[1])), 4e-2),
    "mm_where_scalar_zero": lambda: ({0: _h(128, 128), 1: _h(128, 256)},
                                     lambda i: (lambda h: np.where(np.abs(h) < 4, 0, h))(_mm(i[0], i[1])), 1e-4),
    "mm_rowscale_colbias": lambda: ({0: _h(200, 128), 1: _h(128, 256), 2: RNG.standard_normal(200).astype(np.float32),
                                     3: RNG.standard_normal(256).astype(np.float32)},
                                    lambda i: _mm(i[0], i[1]) * i[2][:, None] + i[3][None, :], 1e-4),
    "mm_clamp_scalars": lambda: ({0: _h(256, 256), 1: _h(256, 256)}, lambda i: np.clip(_mm(i[0], i[1]), -2, 3), 2e-3),
    "mm_residual_gate": lambda: ({0: _h(128, 128), 1: _h(128, 256), 2: _h(128, 256),
                                  3: RNG.standard_normal((128, 256)).astype(np.float32)},
                                 lambda i: i[2] + i[3] * _mm(i[0], i[1]), 0.125),
    "mm_bias_as_start": lambda: ({0: _h(256, 128), 1: _h(128, 256), 2: RNG.standard_normal(256).astype(np.float32)},
                                 lambda i: _mm(i[0], i[1]) + i[2][None, :], 1e-4),
    "mm_lower_triangle": lambda: ({0: _h(128, 128), 1: _h(128, 256)}, lambda i: np.tril(_mm(i[0], i[1])), 1e-4),
    "mm_small_tiles_sigmoid": lambda: ({0: _h(192, 128), 1: _h(128, 192)},
                                       lambda i: 1 / (1 + np.exp(-_mm(i[0], i[1]))), 1e-5),
}


@pytest.mark.parametrize("name", sorted(GEMMS))
def test_gemm_program_matches_numpy(name):
    """``atol`` covers the f16 output's rounding where C is f16 (|C| up to ~200: half an f16 ulp there
    is 0.06), float64 rounding otherwise."""
    from tileorch.testing.user_programs3 import PROGRAMS

    inputs, ref, atol = GEMMS[name]()
    out = _gemm(name, inputs)[PROGRAMS[name].outputs[0]].astype(np.float64)
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out, ref(inputs), atol=atol, rtol=2e-3)


def resized(name: str, shapes: dict, scalars: dict | None = None):
    """``PROGRAMS[name]`` (the sweep's table as the runners see it) at other launch-time sizes:
    :func:`tileorch.testing.export.resized` (the same compiled program, checked)."""
    from tileorch.testing.export import resized as resized_program
    from tileorch.testing.user_programs3 import PROGRAMS

    return resized_program(PROGRAMS[name], shapes, scalars)


def test_resized_is_the_same_program_or_refused():
    """:func:`resized` changes launch-time sizes only: new array shapes and a runtime ``int`` give
    the table's export, byte for byte; a ``ct.Constant`` (a tile size) changed gives another
    program and is refused, so is an array of another rank."""
    from tileorch.testing.export import cutile_bytecode
    from tileorch.testing.user_programs3 import PROGRAMS

    p = resized("attn_cross_ragged_kv", {1: (2, 72, 64), 2: (2, 72, 64)}, {5: 72})
    assert p.spec[1] == ((2, 72, 64), "float16") and p.spec[5] == 72
    assert cutile_bytecode(p.kernel, p.spec) == cutile_bytecode(p.kernel, PROGRAMS["attn_cross_ragged_kv"].spec)
    assert p.spec[0] == PROGRAMS["attn_cross_ragged_kv"].spec[0] and p.kernel is PROGRAMS["attn_cross_ragged_kv"].kernel
    with pytest.raises(AssertionError, match="another program"):
        resized("attn_cross_ragged_kv", {}, {6: 128})  # BM: a ct.Constant
    with pytest.raises(AssertionError):
        resized("attn_cross_ragged_kv", {1: (72, 64)})


class _WriteOwners:
    """Which CTA changed each element of the emulated memory arrays: :meth:`after` compares the arrays with
    their copy from before a CTA ran and fails when that CTA changed an element (any of its bytes) that
    another CTA had already changed (a chained kernel stores each output tile from one instance; the
    emulator runs CTAs one after another, so a second store to the same element is hidden by whichever CTA
    ran last, while the GPU may order them either way).  ``memory``: the emulator's
    ``(base, bytes, "arg<i>")`` list; ``arrays``: the arrays by argument position (the same buffers)."""

    def __init__(self, memory, arrays: dict):
        self.arrays = arrays
        self.checked = [(i, arrays[i].view(np.uint8).reshape(arrays[i].size, arrays[i].itemsize))
                        for i in (int(name[3:]) for _, _, name in memory)]
        self.owner = {i: None for i, _ in self.checked}  # CTA index per element, made on a first change
        self.ctaids = []

    def before(self, ctaid):
        self.ctaids.append(tuple(ctaid))
        self.copies = [data.copy() for _, data in self.checked]

    def after(self):
        me = len(self.ctaids) - 1
        for (i, data), old in zip(self.checked, self.copies):
            changed = np.flatnonzero((data != old).any(axis=1))
            if not changed.size:
                continue
            if self.owner[i] is None:
                self.owner[i] = np.full(len(data), -1, np.int64)
            owner = self.owner[i]
            clash = changed[owner[changed] >= 0]
            if clash.size:
                element = np.unravel_index(int(clash[0]), self.arrays[i].shape)
                raise AssertionError(
                    f"CTA {self.ctaids[me]} changed elements of arg{i} that CTA {self.ctaids[owner[clash[0]]]} had "
                    f"already changed ({clash.size} elements; first {tuple(int(e) for e in element)}): two CTAs "
                    f"store the same output elements")
            owner[changed] = me


def _chained(name: str, inputs: dict, grid3: tuple[int, int, int], tma_arrays_in_memory: bool = False,
             program=None, reorder=None):
    """Run chained-dots program ``name`` on the emulator (every CTA of the host's launch of ``grid3``);
    returns its arrays after the run.  ``tma_arrays_in_memory``: the arrays read through tensor maps
    are plain global memory too (a program whose epilogue loads its Q / X tile again); ``program``:
    the entry to run in place of ``PROGRAMS[name]`` (:func:`resized`); ``reorder(ctaids)``: the CTAs to run and
    their order (the emulator runs CTAs one after another, in launch order unless told otherwise: a write
    that a GPU may order either way is seen only in one order).  Every CTA's changes to the memory-backed
    arrays are checked against the other CTAs' (:class:`_WriteOwners`): two CTAs changing one element
    fail (a chained kernel stores each output tile from one instance; no program here writes an element
    from two CTAs: no atomics, no row vectors stored by several instances)."""
    from tileorch.launchers import cutile as rc
    from tileorch.testing.gemm_emulation import compile_cutile
    from tileorch.testing.ptx_emulator import Emu, chained_launch, stage_guards
    from tileorch.testing.user_programs3 import PROGRAMS

    p = program or PROGRAMS[name]
    prog = compile_cutile(p.kernel, p.spec, name)
    assert prog.kind == "chained", prog.remarks
    arrays = _arrays(p, inputs)
    bases = {i: (i + 1) << 32 for i in arrays}
    args = _described(p, bases)
    params = [0] * len(prog.chained["tmaps"]) + _tile_params(p, args, bases)
    flat = rc.flat_parameters(args)  # a tensor map's "arg": the entry parameter of its array's base pointer
    tma = [flat[t["arg"]][0] for t in prog.chained["tmaps"]]
    memory = [(bases[i], arrays[i].view(np.uint8).reshape(-1), f"arg{i}") for i in sorted(arrays)
              if i not in tma or tma_arrays_in_memory]
    params, ctaids, nctaid = chained_launch(prog.chained, grid3, params)
    if reorder is not None:
        ctaids = reorder(ctaids)
    errors = []
    owners = _WriteOwners(memory, arrays)
    for ctaid in ctaids:
        owners.before(ctaid)
        emu = Emu(prog.ptx, params, prog.chained["smem"], prog.chained["threads"], ctaid, {}, memory,
                  guards=stage_guards(prog.chained), nctaid=nctaid)
        emu.tmaps = {emu.params[j]: {"array": _tma_array(arrays[i], t), **t}
                     for j, (i, t) in enumerate(zip(tma, prog.chained["tmaps"]))}
        emu.run()
        errors += emu.errors
        owners.after()
    assert not errors, errors[:4]
    return arrays


def _tma_array(a: np.ndarray, t: dict) -> np.ndarray:
    """The array a chained kernel's tensor map ``t`` reads on the device: the launch's key-major copy of an fp8 V
    (``copy``: ``launch_copies.key_major16``), else the argument itself (2-D arrays as ``[1, r, c]``)."""
    from tileorch.launchers import launch_copies

    if t.get("copy") == launch_copies.KEY_MAJOR16:
        a = launch_copies.key_major16(a)
    return a if a.ndim > 2 else a[None]


def test_write_owners_name_the_two_ctas_and_the_first_element():
    """The harness's check itself: a CTA changing an element another CTA changed fails, naming both CTAs,
    the argument and the element; disjoint stores, and a CTA changing its own elements twice, pass."""
    out = np.full((4, 3), np.nan, np.float32)
    memory = [(1 << 32, out.view(np.uint8).reshape(-1), "arg2")]
    owners = _WriteOwners(memory, {2: out})
    owners.before((0, 0, 0))
    out[0] = 1.0
    out[0, 1] = 5.0
    owners.after()
    owners.before((1, 0, 0))
    out[1:3] = 2.0
    owners.after()
    owners.before((0, 1, 0))
    out[3] = 3.0
    out[2, 2] = 4.0  # 2.0 and 4.0 differ in one byte: an element counts
    with pytest.raises(AssertionError, match=r"CTA \(0, 1, 0\) changed elements of arg2 that CTA \(1, 0, 0\) had "
                                             r"already changed \(1 elements; first \(2, 2\)\)"):
        owners.after()


def _attention(q, k, v, scale, keep=None):
    s = (q.astype(np.float64) @ np.swapaxes(k.astype(np.float64), -1, -2)) * scale
    if keep is not None:
        s = np.where(keep, s, -np.inf)
    e = np.exp(s - s.max(-1, keepdims=True))
    return (e / e.sum(-1, keepdims=True)) @ v.astype(np.float64)


def _check(out, ref, atol=3e-3):
    assert not np.isnan(out).any(), "unwritten outputs"
    np.testing.assert_allclose(out.astype(np.float64), ref, atol=atol, rtol=1e-2)


def test_cross_attention_ragged_keys():
    """128 queries, 200 keys in 64-key tiles (the last one 8 keys): ``cdiv(kv_len, BN)`` trips, the
    keys past 200 masked (their zero-padded rows must not count)."""
    q, k, v = _h(2, 128, 64), _h(2, 200, 64), _h(2, 200, 64)
    out = _chained("attn_cross_ragged_kv", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(out, _attention(q, k, v, 0.125))


def test_causal_heads_on_a_third_grid_axis():
    q, k, v = _h(2, 2, 256, 64), _h(2, 2, 256, 64), _h(2, 2, 256, 64)
    out = _chained("attn_causal_cdiv_heads3", {0: q, 1: k, 2: v}, (2, 2, 2))[3]
    pos = np.arange(256)
    _check(out, _attention(q, k, v, 0.125, pos[None, :] <= pos[:, None]))


def test_row_vector_state_and_matmul_scores():
    """``ct.matmul`` scores widened to f32 (tileas-fold-dot-accumulate) and the running max / sum held
    as 1-D ``[tm]`` vectors in the chained kernel: against float64 attention (the program's f16
    rounding of S is gone: at least as accurate)."""
    q, k, v = _h(2, 256, 64), _h(2, 256, 64), _h(2, 256, 64)
    out = _chained("attn_rowvec_state", {0: q, 1: k, 2: v}, (2, 2, 1))[3]
    _check(out, _attention(q, k, v, 0.125))


def test_attention_on_a_packed_qkv_tensor():
    """Q, K and V tiles ``(1, tm, 1, 1, d)`` of one ``[B, S, 3, H, D]`` tensor (rank-5 tensor maps
    whose box rows run along S), O stored as ``(1, tm, 1, d)`` tiles of ``[B, S, H, D]``."""
    qkv = _h(2, 256, 3, 2, 64)
    out = _chained("attn_packed_qkv", {0: qkv}, (2, 4, 1))[1]
    q, k, v = (qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))  # [B, H, S, D]
    _check(out, _attention(q, k, v, 0.125).transpose(0, 2, 1, 3))


def test_alibi_slope_from_the_program_id_with_grouped_heads():
    q, k, v = _h(4, 192, 32), _h(2, 192, 32), _h(2, 192, 32)
    out = _chained("attn_alibi_iota_gqa", {0: q, 1: k, 2: v}, (3, 4, 1))[3]
    pos = np.arange(192)
    slopes = 2.0 ** (-8.0 * (np.arange(4) + 1) / 4)
    kk, vv = k[np.arange(4) // 2], v[np.arange(4) // 2]
    s = (q.astype(np.float64) @ kk.astype(np.float64).transpose(0, 2, 1)) / math.sqrt(32)
    s = s - slopes[:, None, None] * np.abs(pos[None, :] - pos[:, None])
    e = np.exp(s - s.max(-1, keepdims=True))
    _check(out, (e / e.sum(-1, keepdims=True)) @ vv.astype(np.float64))


def test_relu_squared_mlp_chain():
    x = _h(192, 64)
    w1 = (RNG.standard_normal((64, 128)) / 8).astype(np.float16)
    w2 = (RNG.standard_normal((128, 64)) / 11).astype(np.float16)
    out = _chained("mlp_relu_sq_chain", {0: x, 1: w1, 2: w2}, (3, 1, 1))[3]
    h = np.maximum(_mm(x, w1), 0)
    _check(out, (h * h).astype(np.float16).astype(np.float64) @ w2.astype(np.float64), atol=1e-2)


def test_fp8_output_gemm():
    """``(A @ B) * 0.125`` stored as fp8 e4m3 by the tier's direct epilogue (the fragment store's
    ``cvt.rn.satfinite.e4m3x2.f32``): the bytes ml_dtypes rounds the float64 product to (nearest
    even; a product within half an e4m3 step of a rounding boundary may round the other way)."""
    import ml_dtypes

    a, b = _h(128, 128), _h(128, 256)
    got = _gemm("mm_fp8_out", {0: a, 1: b})[2]
    assert (got != 0x7F).all() and (got != 0xFF).all(), "unwritten (NaN) outputs"
    value = got.view(ml_dtypes.float8_e4m3fn).astype(np.float64)
    ref = np.clip(_mm(a, b) * 0.125, -448, 448)
    step = np.exp2(np.floor(np.log2(np.maximum(np.abs(ref), 2.0 ** -6))) - 3)  # e4m3's spacing at |ref|
    assert (np.abs(value - ref) <= step / 2 + np.abs(ref) * 1e-6 + 1e-9).all()
    exact = ref.astype(np.float32).astype(ml_dtypes.float8_e4m3fn).view(np.uint8)
    assert (got == exact).mean() > 0.99


def test_e5m2_plain_output_gemm():
    """``acc.astype(float8_e5m2)`` stored: the fragment store's ``cvt.rn.satfinite.e5m2x2.f32``, ragged M
    (200 rows: the last row tile half written), every byte as ml_dtypes rounds the f32 accumulator."""
    import ml_dtypes

    a, b = _h(200, 128), _h(128, 256)
    got = _gemm("mm_e5m2_out", {0: a, 1: b})[2]
    ref = _mm(a, b)
    value = got.view(ml_dtypes.float8_e5m2).astype(np.float64)
    assert not np.isnan(value).any(), "unwritten outputs"
    # the kernel rounds its f32 accumulator, which is within K * 2^-24 * (|a| @ |b|) of the exact product
    # (the inputs come from the module's shared generator: which values this test draws depends on the tests
    # run before it in the worker, so a near-tie in f64 may round the other way in f32)
    acc_err = a.shape[1] * 2.0 ** -24 * _mm(np.abs(a), np.abs(b))
    step = np.exp2(np.floor(np.log2(np.maximum(np.abs(ref) + acc_err, 2.0 ** -14))) - 2)  # e5m2's spacing
    assert (np.abs(value - ref) <= step / 2 + acc_err + 1e-9).all()


def test_pre_activation_and_relu_outputs():
    a, b = _h(128, 128), _h(128, 256)
    arrays = _gemm("mm_pre_and_post", {0: a, 1: b})
    h = _mm(a, b)
    assert not np.isnan(arrays[2]).any() and not np.isnan(arrays[3]).any(), "unwritten outputs"
    np.testing.assert_allclose(arrays[2].astype(np.float64), h, atol=0.125, rtol=2e-3)
    np.testing.assert_allclose(arrays[3], np.maximum(h, 0), atol=1e-4, rtol=2e-3)


def _swiglu_ref(x, w1, w3, w2):
    """float64 SwiGLU MLP, the gated product rounded to f16 as the program's cast does."""
    g, u = _mm(x, w1), _mm(x, w3)
    return (g / (1 + np.exp(-g)) * u).astype(np.float16).astype(np.float64) @ w2.astype(np.float64)


@pytest.mark.parametrize("name, shapes, grid", [
    ("mlp_swiglu", ((128, 64), (64, 128), (128, 64)), 1),  # 128x64 tiles, N-major weights: 2 hidden tiles
    ("mlp_swiglu_tm64", ((192, 128), (128, 96), (96, 128)), 3),  # one warp group, 32-wide hidden tiles (64B boxes)
])
def test_swiglu_mlp_two_first_dots(name, shapes, grid):
    """SwiGLU (``silu(x W1) * (x W3)``, then ``@ W2``): two first dots sharing x, one n = 2 tn WGMMA
    over both weight tiles side by side in the stage, then the second dot (the chained kernel)."""
    (m, d), (_, h), (_, do) = shapes
    x = _h(m, d)
    w1, w3 = ((RNG.standard_normal((d, h)) / math.sqrt(d)).astype(np.float16) for _ in range(2))
    w2 = (RNG.standard_normal((h, do)) / math.sqrt(h)).astype(np.float16)
    out = _chained(name, {0: x, 1: w1, 2: w3, 3: w2}, (grid, 1, 1))[4]
    _check(out, _swiglu_ref(x, w1, w3, w2), atol=1e-2)


def test_swiglu_mlp_transposed_weights_ragged_rows():
    """Gate / up weights stored ``[hidden, D]`` (K-major B tiles: each 128-wide row in two 64-column
    boxes, interleaved with the other weight's in the stage) and 200 rows over two 128-row tiles
    (the last one's rows zero-filled by TMA, its stores predicated)."""
    x = _h(200, 128)
    w1t, w3t = ((RNG.standard_normal((192, 128)) / 11).astype(np.float16) for _ in range(2))
    w2 = (RNG.standard_normal((192, 64)) / 14).astype(np.float16)
    out = _chained("mlp_swiglu_wt", {0: x, 1: w1t, 2: w3t, 3: w2}, (2, 1, 1))[4]
    _check(out, _swiglu_ref(x, w1t.T, w3t.T, w2), atol=1e-2)


def test_gated_mlp_first_dots_with_their_own_a_tiles():
    """``relu(x W1) * (z W3)``, then ``@ W2``: the first dots read different A tiles (x, z), each
    loaded once into the Q slot and read by its own n = 64 WGMMA chain (session 23; the SIMT path
    ran it before); 2 hidden tiles."""
    x, z = _h(128, 64), _h(128, 64)
    w1, w3 = ((RNG.standard_normal((64, 128)) / 8).astype(np.float16) for _ in range(2))
    w2 = (RNG.standard_normal((128, 64)) / 11).astype(np.float16)
    out = _chained("mlp_geglu_two_inputs", {0: x, 1: z, 2: w1, 3: w3, 4: w2}, (1, 1, 1))[5]
    g, u = _mm(x, w1), _mm(z, w3)
    _check(out, (np.maximum(g, 0) * u).astype(np.float16).astype(np.float64) @ w2.astype(np.float64), atol=1e-2)


def test_three_first_dots():
    """Three first dots sharing x (one n = 96 WGMMA over three 32-wide weight tiles), combined as
    ``relu(g) * u + v`` before the second dot."""
    x = _h(128, 64)
    w1, w3, w4 = ((RNG.standard_normal((64, 96)) / 8).astype(np.float16) for _ in range(3))
    w2 = (RNG.standard_normal((96, 64)) / 10).astype(np.float16)
    out = _chained("mlp_three_gates", {0: x, 1: w1, 2: w3, 3: w4, 4: w2}, (2, 1, 1))[5]
    a = np.maximum(_mm(x, w1), 0) * _mm(x, w3) + _mm(x, w4)
    _check(out, a.astype(np.float16).astype(np.float64) @ w2.astype(np.float64), atol=1e-2)
