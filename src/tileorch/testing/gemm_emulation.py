"""The tier's TMA/WGMMA GEMM kernel run on the CPU: every CTA of its persistent grid on
:class:`tileorch.testing.ptx_emulator.Emu`, with the parameters the launcher passes (the builder's
tensor maps, C, M, N, K and the scheduler's record, then the tile program's own parameters).

A test and debugging aid shared by the CPU tests of program-grid, K-range and epilogue GEMMs.
A and B are read through their tensor maps (boxes of 64 elements; A's box ``tile_m`` rows, B's
64); only the buffers listed in ``memory`` may be stored to (a store elsewhere faults); a TMA epilogue's C map
(``cfg.epilogue == "tma"``) writes into C's buffer there (its base is ``c_base``)."""

from __future__ import annotations


def array_params(base: int, shape: tuple[int, ...]) -> list[int]:
    """A row-major array's parameters as a cuTile entry takes them: base, shape, strides (elements)."""
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    return [base, *shape, *strides]


def run_gemm(p, a, b, c_base: int, mnk: tuple[int, int, int], tile_params=(), memory=(), problem=None,
             sms: int = 2, more_b=(), epi=None, epi_c: int = 1, more_a=(), seg_k=()) -> list[str]:
    """Run every CTA of the persistent grid of the GEMM program ``p`` (``compile_program``'s result,
    ``p.gemm_config`` set) on A ``a`` [M, K] and B ``b`` [K, N] (``[N, K]`` for a K-major B, 64-wide K
    tiles; a batched kernel's ``[L, M, K]`` and ``[L, K, N]``); return the emulator's errors.

    ``mnk``: the M, N, K the builder's parameters carry (C's shape and A's columns); ``problem``:
    the (M, N, K, L) the scheduler is sized for (default ``(*mnk, 1)``; a program-grid kernel's is
    the launch grid in tiles); ``tile_params``: the tile program's parameters after the builder's
    (each array's :func:`array_params`, scalars, the grid); ``memory``: ``(base, uint8 view, name)``
    of the buffers the kernel stores to; ``more_b``: the other B operands of dots sharing A (a
    ``b_operands > 1`` configuration: their tensor maps follow the scheduler's record, laid out as B);
    ``epi``: the second dot's B ``[K2, N2]`` (a ``cfg.epi_n`` configuration: its tensor map follows theirs;
    ``[N2, K2]`` for ``cfg.epi_major == "k"``); ``epi_c``: the N tiles per work tile of a kernel looping over
    them (``cfg.epi_loop``: its parameter after E's map; the scheduler walks ``ceil(N tiles / epi_c)`` of them);
    ``more_a``: the other A operands of dots with an A each (``a_operands > 1``: their maps follow the Bs', laid
    out as A); ``seg_k``: each later pair's K (``cfg.k_segments``: the kernel's ``k<i>`` after those maps)."""
    from tileorch.launchers.gemm_host import epi_scheduler_n, scheduler_params
    from tileorch.schedulers.device_params import pack_device_params
    from tileorch.testing.ptx_emulator import Emu

    cfg = p.gemm_config
    m, n, k = mnk
    sm, sn, sk, sl = problem or (m, n, k, 1)
    mid = getattr(cfg, "batch_mid", "") if getattr(cfg, "batched", False) else ""
    # an operand batched in its middle dimension ([rows, L, cols], GemmConfig.batch_mid): its [L, rows, cols] view,
    # as the host's 3-D map walks it (rows L cols apart, matrices cols apart)
    a = a.swapaxes(0, 1) if "a" in mid and a.ndim == 3 else a
    b = b.swapaxes(0, 1) if "b" in mid and b.ndim == 3 else b
    sched = scheduler_params(cfg, sm, epi_scheduler_n(cfg, sn, epi_c), sk, sms, 0, sl)
    params = [0, 0, 0, c_base, m, n, k, pack_device_params(sched, 0, 0, 0), *([0] * len(more_b)), *([0] * len(more_a)), *seg_k,
              *([0] if epi is not None else []), *([epi_c] if getattr(cfg, "epi_loop", False) else []),
              # (C batched in its middle dimension, [M, L, N]: rows L N apart, the kernel's ldc, as the launcher's)
              *([sl * n] if getattr(cfg, "c_ld", False) and "c" in mid else []),
              *([0] * len(kvec_box_bytes(cfg))), *tile_params]  # (the K vectors' maps: GemmConfig.kvecs)
    first_tile_param = len(params) - len(tile_params)
    errors: list[str] = []
    for x in range(sched.grid[0]):
        for y in range(sched.grid[1]):
            emu = Emu(p.ptx, params, cfg.smem_bytes, cfg.threads, (x, y, 0), {}, list(memory), nctaid=sched.grid)
            # the host's boxes (gemm_host.tensor_maps): a K-major operand in boxes of tile_k K (swizzled by
            # cfg.k_row_bytes) and its tile's rows; an M- / N-major one in boxes of 64 M / N and tile_k K rows
            b_map = ({"rows": cfg.tile_n // cfg.cluster_m, "box": cfg.tile_k, "swizzle": cfg.k_row_bytes}
                     if cfg.b_major == "k" else {"rows": cfg.tile_k, "box": 64})
            a_map = ({"rows": cfg.tile_m, "box": cfg.tile_k, "swizzle": cfg.k_row_bytes}
                     if getattr(cfg, "a_major", "k") == "k" else {"rows": cfg.tile_k, "box": 64})
            # (a batched kernel's maps are rank 3: [L, rows, cols], more batch dimensions flattened into L)
            emu.tmaps = {emu.params[0]: {"array": a.reshape(-1, *a.shape[-2:]), **a_map},
                         emu.params[1]: {"array": b.reshape(-1, *b.shape[-2:]), **b_map}}
            for i, more in enumerate(more_b, start=8):  # (after A, B, C, C's pointer, M, N, K, the record)
                emu.tmaps[emu.params[i]] = {"array": more.reshape(-1, *more.shape[-2:]), **b_map}
                if getattr(cfg, "lora_rank", 0) and cfg.b_major == "k":  # a low-rank branch's B: lora_rank rows
                    emu.tmaps[emu.params[i]]["rows"] = cfg.lora_rank
            for i, more in enumerate(more_a, start=8 + len(more_b)):  # (after the other Bs' maps)
                emu.tmaps[emu.params[i]] = {"array": more.reshape(-1, *more.shape[-2:]), **a_map}
            if epi is not None:  # the second dot's B: boxes of tile_n K rows x 64 N columns (N-major E [K2, N2]),
                # of epi_n N rows x 64 K columns (K-major E [N2, K2])
                rows = cfg.epi_n if getattr(cfg, "epi_major", "n") == "k" else cfg.epi_k
                emu.tmaps[emu.params[8 + len(more_b)]] = {"array": epi, "rows": rows, "box": 64}
            if cfg.epilogue == "tma":  # C's map (the TMA epilogue's stores): boxes of 64 rows x 64 columns
                emu.tmaps[emu.params[2]] = {"array": _c_array(memory, c_base, cfg.out_dtype, m, n), "rows": 64,
                                            "box": 64, "name": "C"}
            if getattr(cfg, "b_raw", ""):  # a computed B's raw tile: unswizzled boxes (GemmConfig.b_raw)
                emu.tmaps[emu.params[1]].update(rows=cfg.tile_k if cfg.b_major == "n" else cfg.tile_n,
                                                box=cfg.raw_chunk_columns, swizzle=0)
            if getattr(cfg, "a_raw", ""):  # a computed A's raw tile: unswizzled boxes, or GemmConfig.a_raw_swizzle
                emu.tmaps[emu.params[0]].update(rows=cfg.tile_m if cfg.a_major == "k" else cfg.tile_k,
                                                box=cfg.a_raw_chunk_columns, swizzle=getattr(cfg, "a_raw_swizzle", 0))
            for v, entry in enumerate(x for x in getattr(cfg, "kvecs", "").split(",") if x):
                # a K vector's map (GemmConfig.kvecs): 2-D, its array's rows (1 for a 1-D array) of its last
                # dimension, boxes of one row of its elements, unswizzled
                emu.tmaps[emu.params[first_tile_param - len(kvec_box_bytes(cfg)) + v]] = _kvec_map(
                    entry, tile_params, memory)
            emu.run()
            errors += emu.errors
    return errors


def kvec_box_bytes(cfg) -> tuple[int, ...]:
    return tuple(getattr(cfg, "kvec_box_bytes", ()))


def _kvec_map(entry: str, tile_params, memory) -> dict:
    """The emulator's tensor map of a TMA-loaded K vector (``GemmConfig.kvecs`` entry ``bytes:param:dtype:rank``),
    its array found in ``memory`` at the base the program's parameter ``param`` holds."""
    import numpy as np

    nbytes, param, dtype, rank = entry.split(":")
    param, rank = int(param), int(rank)
    base, shape = tile_params[param], [int(x) for x in tile_params[param + 1:param + 1 + rank]]
    if dtype == "bf16":
        from ml_dtypes import bfloat16 as npt
    else:
        npt = {"f16": np.float16, "f32": np.float32, "i8": np.int8, "i32": np.int32}[dtype]
    buf = next(b for b0, b, _ in memory if b0 == base)
    count = int(np.prod(shape))
    arr = buf[:count * np.dtype(npt).itemsize].view(npt).reshape(shape if rank == 2 else (1, shape[0]))
    return {"array": arr, "rows": 1, "box": int(nbytes) // np.dtype(npt).itemsize, "swizzle": 0}


def _c_array(memory, c_base: int, out_dtype: str, m: int, n: int):
    """C ``[M, N]`` (``out_dtype``: f16 or bf16, the TMA epilogue's) as a view of its buffer in ``memory``."""
    import numpy as np

    buf = next(b for base, b, _ in memory if base == c_base)
    if out_dtype == "bf16":
        from ml_dtypes import bfloat16 as dtype
    else:
        dtype = np.float16
    return buf[:m * n * 2].view(dtype).reshape(m, n)


def compile_cutile(kernel, spec: list, name: str | None = None, **options):
    """``compile_program`` of ``kernel`` exported for ``spec`` (:func:`tileorch.testing.export.cutile_bytecode`)
    for sm_90a, without ptxas unless ``ptxas=True`` is given; once per distinct input in a test run
    (:func:`tileorch.testing.compile_memo.compile_once`)."""
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    options = {"arch": "sm_90a", "ptxas": False, **options}
    return compile_once(cutile_bytecode(kernel, spec), name or getattr(kernel, "__name__", "k"), **options)


__all__ = ["array_params", "compile_cutile", "run_gemm"]
