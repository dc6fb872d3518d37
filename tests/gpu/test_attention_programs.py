"""Two chained dots on tensor cores: the textbook cuTile FlashAttention forward
(``tileorch.testing.attention_programs.attention_fwd``) and a fused two-GEMM MLP, compiled by the
TileAS tier's chained-dots lowering (``kind == "chained"``: TMA + two WGMMAs per loop iteration,
the second with its A operand from registers) and run through ``tileorch.cutile.launch`` against
torch fp32 references (NaN-prefilled outputs; ragged sequence lengths).  Skipped without a GPU
(tests/gpu/conftest.py); needs torch and cuda-tile."""

from __future__ import annotations

import shutil
import subprocess

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("cuda.tile")

import tileorch.cutile  # noqa: E402
from tileorch.launchers import cutile as rc  # noqa: E402
from tileorch.testing.attention_programs import attention_args, attention_branchy_args, mlp_chain_args  # noqa: E402


def _close(out, ref, atol, rtol, scale_tol=1e-2):
    assert not torch.isnan(out).any(), "unwritten (NaN) outputs"
    torch.testing.assert_close(out.float(), ref, atol=atol, rtol=rtol)
    # long rows average many values to small outputs: bound the error by the output's scale too
    err = (out.float() - ref).abs().max().item()
    assert err <= scale_tol * max(ref.abs().max().item(), 1e-3), f"max error {err} vs max |ref| {ref.abs().max().item()}"


def _run(kernel, args, grid):
    tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
    torch.cuda.synchronize()
    return rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent").program


def _run_uncached(kernel, args, grid):
    """:func:`_run` on a fresh compile: the launcher's caches are cleared before (the switches the test
    set reach the compile) and after (its kernel does not leak into the next test)."""
    rc.clear_caches()
    try:
        return _run(kernel, args, grid)
    finally:
        rc.clear_caches()


def _close_for(dtype, out, ref):
    """:func:`_close` at the tolerance of ``dtype``'s outputs (bfloat16: 8 significant bits)."""
    if dtype == "bfloat16":
        _close(out, ref, 1e-2, 3e-2, scale_tol=3e-2)
    else:
        _close(out, ref, 2e-3, 1e-2)


@pytest.mark.parametrize("tile_m,tile_n", [(128, 64), (64, 64), (128, 128)], ids=lambda v: str(v))
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("bh,seq", [(4, 1000), (3, 128), (2, 4096), (5, 77), (1, 1)], ids=lambda v: str(v))
def test_attention_on_tensor_cores(bh, seq, d, tile_m, tile_n):
    kernel, args, grid, out, ref = attention_args(bh, seq, d, tile_m, tile_n, seed=seq + d)
    program = _run(kernel, args, grid)
    assert program.kind == "chained", f"attention left the tensor-core path: {program.remarks}"
    _close(out, ref, 2e-3, 1e-2)


@pytest.mark.parametrize("seq", [1000, 256])
def test_causal_attention(seq):
    kernel, args, grid, out, ref = attention_args(2, seq, 64, causal=True, seed=seq)
    program = _run(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    _close(out, ref, 2e-3, 1e-2)


def test_attention_bf16():
    kernel, args, grid, out, ref = attention_args(2, 1000, 128, dtype="bfloat16", seed=7)
    program = _run(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    _close(out, ref, 1e-2, 3e-2, scale_tol=3e-2)


@pytest.mark.parametrize("tile_m,tile_n", [(128, 128), (64, 64)], ids=lambda v: str(v))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("bh,seq", [(4, 1000), (2, 4096), (3, 77), (1, 1)], ids=lambda v: str(v))
def test_attention_packed_epilogue(bh, seq, d, dtype, causal, tile_m, tile_n, monkeypatch):
    """TILEORCH_ATTN_EPILOGUE=packed: whole, aligned output tiles stored as 32-bit column pairs, the
    ragged last tile element by element (persistent non-causal kernels, one CTA per causal instance)."""
    monkeypatch.setenv("TILEORCH_ATTN_EPILOGUE", "packed")
    kernel, args, grid, out, ref = attention_args(bh, seq, d, tile_m, tile_n, causal=causal, dtype=dtype,
                                                  seed=seq + d + 5)
    program = _run_uncached(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    assert "st.global.b32" in program.ptx
    _close_for(dtype, out, ref)


SWITCHES = {"peeled": {"TILEORCH_ATTN_PEELED_MASKS": "1"}, "tree": {"TILEORCH_ATTN_TREE_REDUCE": "1"},
            "exp2_fma": {"TILEORCH_ATTN_EXP2_FMA": "2"},  # half the exponentials on the FMA pipe (K = 2)
            "all": {"TILEORCH_ATTN_EPILOGUE": "packed", "TILEORCH_ATTN_PEELED_MASKS": "1",
                    "TILEORCH_ATTN_TREE_REDUCE": "1"}}


@pytest.mark.parametrize("switches", list(SWITCHES))
@pytest.mark.parametrize("tile_m,tile_n", [(128, 128), (128, 64), (64, 64)], ids=lambda v: str(v))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("bh,seq", [(4, 1000), (2, 4096), (3, 77)], ids=lambda v: str(v))
def test_attention_instance_switches(bh, seq, d, dtype, causal, tile_m, tile_n, switches, monkeypatch):
    """The switches of the per-instance and reduction work (TILEORCH_ATTN_PEELED_MASKS: the peeled
    tile 0 versioned; TILEORCH_ATTN_TREE_REDUCE: pairwise row reductions; TILEORCH_ATTN_EXP2_FMA:
    exponentials by the FMA-pipe polynomial; all of the first two with the packed epilogue) against
    the fp32 reference."""
    for k, v in SWITCHES[switches].items():
        monkeypatch.setenv(k, v)
    kernel, args, grid, out, ref = attention_args(bh, seq, d, tile_m, tile_n, causal=causal, dtype=dtype,
                                                  seed=seq + d + 9)
    program = _run_uncached(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    _close_for(dtype, out, ref)


def _more_instances_than_sms(test):
    """The cases of the persistent kernel's per-instance switches: 1024 / 4000 / 77 keys with more
    instances than SMs (and one instance of one key), both head dims, dtypes and masks, three tile
    shapes (the parametrizations in the order the stacked decorators applied them)."""
    marks = [pytest.mark.parametrize("bh,seq", [(40, 1024), (9, 4000), (300, 77), (1, 1)], ids=lambda v: str(v)),
             pytest.mark.parametrize("d", [64, 128]), pytest.mark.parametrize("dtype", ["float16", "bfloat16"]),
             pytest.mark.parametrize("causal", [False, True]),
             pytest.mark.parametrize("tile_m,tile_n", [(128, 128), (128, 64), (64, 64)], ids=lambda v: str(v))]
    for mark in marks:
        test = mark(test)
    return test


SHORT_SEQ_SWITCHES = {"row_div": {"TILEORCH_ATTN_ROW_DIV": "1"},
                      "early_q": {"TILEORCH_ATTN_EARLY_Q": "1", "TILEORCH_ATTN_PERSISTENT": "1"},
                      "row_div_early_q": {"TILEORCH_ATTN_ROW_DIV": "1", "TILEORCH_ATTN_EARLY_Q": "1"},
                      "row_div_next_s": {"TILEORCH_ATTN_ROW_DIV": "1", "TILEORCH_ATTN_NEXT_S": "1",
                                         "TILEORCH_ATTN_PERSISTENT": "1"},
                      # session 17: C = acc * alpha behind the next first dot, skipped where alpha is 1
                      "late_skip": {"TILEORCH_ATTN_LATE_RESCALE": "1", "TILEORCH_ATTN_SKIP_RESCALE": "1"},
                      "late_pack_skip": {"TILEORCH_ATTN_LATE_RESCALE": "1", "TILEORCH_ATTN_SKIP_RESCALE": "1",
                                         "TILEORCH_ATTN_LATE_PACK": "1"},
                      "late_skip_pingpong": {"TILEORCH_ATTN_LATE_RESCALE": "1", "TILEORCH_ATTN_SKIP_RESCALE": "1",
                                             "TILEORCH_ATTN_LATE_PACK": "1", "TILEORCH_ATTN_PINGPONG": "1",
                                             "TILEORCH_ATTN_PERSISTENT": "0"},
                      "stages2_late": {"TILEORCH_ATTN_STAGES": "2", "TILEORCH_ATTN_LATE_RESCALE": "1"},
                      # session 19: the persistent kernel's snake order (against its round-robin order)
                      "snake": {"TILEORCH_ATTN_SCHEDULE": "snake", "TILEORCH_ATTN_PERSISTENT": "1"},
                      "snake_lpt": {"TILEORCH_ATTN_SCHEDULE": "snake_lpt", "TILEORCH_ATTN_PERSISTENT": "1"},
                      "snake_next_s": {"TILEORCH_ATTN_SCHEDULE": "snake", "TILEORCH_ATTN_PERSISTENT": "1",
                                       "TILEORCH_ATTN_NEXT_S": "1"},
                      # session 26: each instance's first K/V tiles loaded before its Q
                      "kv_ahead": {"TILEORCH_ATTN_KV_AHEAD": "1", "TILEORCH_ATTN_PERSISTENT": "1"},
                      "kv_ahead_snake": {"TILEORCH_ATTN_KV_AHEAD": "1", "TILEORCH_ATTN_SCHEDULE": "snake",
                                         "TILEORCH_ATTN_PERSISTENT": "1"},
                      # session 27: tile j+1's first dot issued before tile j's softmax (alone; without
                      # persistence; unrolled by two)
                      "s_ahead": {"TILEORCH_ATTN_S_AHEAD": "1"},
                      "s_ahead_plain": {"TILEORCH_ATTN_S_AHEAD": "1", "TILEORCH_ATTN_PERSISTENT": "0"},
                      "s_ahead2": {"TILEORCH_ATTN_S_AHEAD": "2"},
                      # session 28: the consumer warp groups' first instance started 2500 cycles apart
                      "stagger": {"TILEORCH_ATTN_STAGGER": "2500", "TILEORCH_ATTN_PERSISTENT": "1"},
                      # session 29: the first dot's A (Q) read once per instance into registers (persistent: the
                      # Q slot released right after; one CTA per instance)
                      "q_regs": {"TILEORCH_ATTN_Q_REGS": "1", "TILEORCH_ATTN_PERSISTENT": "1"},
                      "q_regs_plain": {"TILEORCH_ATTN_Q_REGS": "1", "TILEORCH_ATTN_PERSISTENT": "0"}}


@pytest.mark.parametrize("switches", list(SHORT_SEQ_SWITCHES))
@_more_instances_than_sms
def test_attention_short_sequence_switches(bh, seq, d, dtype, causal, tile_m, tile_n, switches, monkeypatch):
    """TILEORCH_ATTN_ROW_DIV (the epilogue's IEEE division by one reciprocal per row),
    TILEORCH_ATTN_EARLY_Q (the Q slot released before the last tile's second dot), TILEORCH_ATTN_KV_AHEAD
    (each instance's first K/V tiles loaded before its Q), TILEORCH_ATTN_S_AHEAD (tile j+1's first dot
    before tile j's softmax) and session 17's
    TILEORCH_ATTN_LATE_RESCALE / SKIP_RESCALE / LATE_PACK / STAGES change no output bit: the kernel
    with them against the same program without them (same inputs, same launch),
    and against the fp32 reference; more instances than SMs at 1024 / 4000 / 77 keys."""
    kernel, args, grid, out, ref = attention_args(bh, seq, d, tile_m, tile_n, causal=causal, dtype=dtype,
                                                  seed=seq + d + 13)
    for k, v in SHORT_SEQ_SWITCHES[switches].items():
        if k in ("TILEORCH_ATTN_PERSISTENT", "TILEORCH_ATTN_NEXT_S", "TILEORCH_ATTN_PINGPONG"):
            monkeypatch.setenv(k, v)  # in both runs: the comparison isolates the other switches
        elif k in ("TILEORCH_ATTN_ROW_DIV", "TILEORCH_ATTN_LATE_RESCALE"):
            monkeypatch.setenv(k, "0")  # on by default: the first run is the kernel without it
    rc.clear_caches()
    try:
        _run(kernel, args, grid)
        want = out.clone()
        out.fill_(float("nan"))
        for k, v in SHORT_SEQ_SWITCHES[switches].items():
            monkeypatch.setenv(k, v)
        rc.clear_caches()
        program = _run(kernel, args, grid)
    finally:
        rc.clear_caches()
    assert program.kind == "chained", program.remarks
    if "TILEORCH_ATTN_ROW_DIV" in SHORT_SEQ_SWITCHES[switches]:
        assert program.chained.get("row_div") is True, program.chained
    if "late" in switches and program.chained.get("pipelined"):
        assert program.chained.get("late_rescale") is True, program.chained
    if "early_q" in switches and program.chained.get("persistent") and program.chained.get("pipelined"):
        assert program.chained["persistent"].get("early_q") is True, program.chained
    persistent = program.chained.get("persistent")
    if "kv_ahead" in switches and persistent and program.chained["stages"] > 1 and persistent["q_slots"] == 1:
        assert persistent.get("kv_ahead") == program.chained["stages"] - 1, program.chained
    if "s_ahead" in switches and d == 64 and tile_n == 128 and program.chained.get("pipelined"):  # d128: refused
        assert program.chained.get("s_ahead") is True, program.chained
    if "q_regs" in switches:  # applies to every 64/128-row kernel of this program (not NEXT_S, not 4 groups)
        assert program.chained.get("q_regs") == d // 4, program.chained
    if "TILEORCH_ATTN_SCHEDULE" in SHORT_SEQ_SWITCHES[switches]:
        want_order = SHORT_SEQ_SWITCHES[switches]["TILEORCH_ATTN_SCHEDULE"]
        assert program.chained["persistent"].get("schedule") == want_order, program.chained
    assert torch.equal(out.view(torch.int16), want.view(torch.int16)), "output bits differ from the kernel without it"
    _close_for(dtype, out, ref)


@pytest.mark.parametrize("order", ["snake", "snake_lpt"])
@_more_instances_than_sms
def test_attention_snake_schedule(bh, seq, d, dtype, causal, tile_m, tile_n, order, monkeypatch):
    """TILEORCH_ATTN_SCHEDULE=snake / snake_lpt alone (session 19): causal programs become persistent (the
    heavy-first axis fastest / slowest, odd rounds dealt backwards), non-causal ones keep persistence with
    the new dealing; against the fp32 reference (NaN-prefilled: an instance dealt twice or never shows),
    more instances than SMs at 1024 / 4000 / 77 keys."""
    monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", order)
    monkeypatch.delenv("TILEORCH_ATTN_PERSISTENT", raising=False)
    kernel, args, grid, out, ref = attention_args(bh, seq, d, tile_m, tile_n, causal=causal, dtype=dtype,
                                                  seed=seq + d + 19)
    program = _run_uncached(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    assert program.chained["persistent"].get("schedule") == order, program.chained
    _close_for(dtype, out, ref)


@pytest.mark.parametrize("ctas", ["auto", "sms", "total"])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("bh,seq,want", [("1sms", 1024, "sms"), (4, 16384, "total"), ("2sms", 77, "sms")],
                         ids=lambda v: str(v))
def test_attention_snake_default_launch(bh, seq, want, d, ctas, monkeypatch):
    """The default causal kernel (session 19: persistent, snake dealing) launched on one CTA per SM or one
    per instance, as the host's balance model picks (``auto``: whole rounds of 1k or 77-key instances one
    per SM, 4 heads of 16k one per instance) or as TILEORCH_ATTN_CTAS forces: the output is bit-identical to the
    round-robin persistent kernel's (TILEORCH_ATTN_PERSISTENT=1 alone: the same instances' arithmetic,
    another order) and the fp32 reference (NaN-prefilled: an instance run twice or never shows)."""
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    # "Nsms": N heads per SM, so the instances fill whole rounds of one CTA per SM (the balance model's
    # busiest CTA is the mean: 1k -> 8 key-tile weights dealt in snake pairs, 77 keys -> equal weights);
    # 4 heads of 16k: 128 query tiles per head, rounds of ragged weights (1.47x the mean on 132 SMs)
    bh = sms * int(bh[:-3]) if isinstance(bh, str) else bh
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    monkeypatch.delenv("TILEORCH_ATTN_SCHEDULE", raising=False)
    kernel, args, grid, out, ref = attention_args(bh, seq, d, 128, 128, causal=True, seed=seq + d + 23)
    rc.clear_caches()
    try:
        program = _run(kernel, args, grid)
        assert "schedule" not in program.chained["persistent"], program.chained
        want_out = out.clone()
        out.fill_(float("nan"))
        monkeypatch.delenv("TILEORCH_ATTN_PERSISTENT")
        monkeypatch.setenv("TILEORCH_ATTN_CTAS", ctas)
        rc.clear_caches()
        program = _run(kernel, args, grid)
        entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent")
        remark = entry.launch_remarks.get(tuple(grid) + (1,) * (3 - len(grid)), "")
    finally:
        rc.clear_caches()
    assert program.chained["persistent"].get("schedule") == "snake", program.chained
    total = grid[0] * grid[1] * (grid[2] if len(grid) > 2 else 1)
    expect = min(total, sms) if (want if ctas == "auto" else ctas) == "sms" else total
    assert remark.startswith(f"remark: {expect} CTAs"), remark
    assert torch.equal(out.view(torch.int16), want_out.view(torch.int16)), "bits differ from the round-robin kernel"
    _close(out, ref, 2e-3, 1e-2)


@pytest.mark.parametrize("causal", [False, True])
def test_sample_style_attention_snake_schedule(causal, monkeypatch):
    """The cuTile samples' forward (4-D arrays, grouped KV heads, the masks in a branch) under the snake
    schedule, against the fp32 reference."""
    monkeypatch.setenv("TILEORCH_ATTN_SCHEDULE", "snake")
    kernel, args, grid, out, ref = attention_branchy_args(2, 4, 1000, 64, causal=causal, group=2, seed=191)
    program = _run_uncached(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    assert program.chained["persistent"].get("schedule") == "snake", program.chained
    _close(out, ref, 2e-3, 1e-2)


def _pingpong_kernel_case(bh, seq, d, dtype, causal, tile_m, tile_n, overlap, monkeypatch):
    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", overlap)
    monkeypatch.delenv("TILEORCH_ATTN_PINGPONG", raising=False)
    kernel, args, grid, out, ref = attention_args(bh, seq, d, tile_m, tile_n, causal=causal, dtype=dtype,
                                                  seed=seq + d + 29)
    rc.clear_caches()
    try:
        _run(kernel, args, grid)
        want = out.clone()
        out.fill_(float("nan"))
        monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "kernel")
        rc.clear_caches()
        program = _run(kernel, args, grid)
    finally:
        rc.clear_caches()
    assert program.kind == "chained", program.remarks
    if tile_m == 128:  # two consumer warp groups: persistent with the kernel-wide turns
        assert program.chained["persistent"].get("pingpong") == "kernel", program.chained
    else:
        assert "two consumer warp groups" in program.chained["pingpong_kernel_off"], program.chained
    assert torch.equal(out.view(torch.int16), want.view(torch.int16)), "output bits differ from the kernel without it"
    if dtype == "bfloat16":
        _close(out, ref, 1e-2, 3e-2, scale_tol=3e-2)
    else:
        _close(out, ref, 2e-3, 1e-2)


@_more_instances_than_sms
def test_attention_pingpong_kernel(bh, seq, d, dtype, causal, tile_m, tile_n, monkeypatch):
    """TILEORCH_ATTN_PINGPONG=kernel (session 20: FA3's once-per-kernel turns in the persistent kernel)
    changes no output bit: the same persistent kernel without the turns (same dealing, same launch),
    and the fp32 reference; more instances than SMs at 1024 / 4000 / 77 keys, 1 key, causal or not
    (a hang here is a turn protocol the checker missed)."""
    _pingpong_kernel_case(bh, seq, d, dtype, causal, tile_m, tile_n, "1", monkeypatch)


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("bh,seq", [(40, 1024), (300, 77)], ids=lambda v: str(v))
def test_attention_pingpong_kernel_plain_loop(bh, seq, d, causal, monkeypatch):
    """The same with the plain consumer loop (TILEORCH_ATTN_OVERLAP=0: a turn per whole iteration)."""
    _pingpong_kernel_case(bh, seq, d, "float16", causal, 128, 128, "0", monkeypatch)


def _run_pingpong_kernel(kernel, args, grid, monkeypatch):
    """Launch a two-dot program with TILEORCH_ATTN_PINGPONG=kernel (in-process caches cleared
    before and after) and check that it compiled to the chained kernel with kernel-level ping-pong."""
    monkeypatch.setenv("TILEORCH_ATTN_PINGPONG", "kernel")
    rc.clear_caches()
    try:
        program = _run(kernel, args, grid)
    finally:
        rc.clear_caches()
    assert program.kind == "chained", program.remarks
    assert program.chained["persistent"].get("pingpong") == "kernel", program.chained
    return program


@pytest.mark.parametrize("causal", [False, True])
def test_sample_style_attention_pingpong_kernel(causal, monkeypatch):
    """The cuTile samples' forward (4-D arrays, grouped KV heads, the masks in a branch) with
    TILEORCH_ATTN_PINGPONG=kernel, against the fp32 reference."""
    kernel, args, grid, out, ref = attention_branchy_args(2, 4, 1000, 64, causal=causal, group=2, seed=193)
    _run_pingpong_kernel(kernel, args, grid, monkeypatch)
    _close(out, ref, 2e-3, 1e-2)


@pytest.mark.parametrize("m,hidden", [(40000, 512), (20000, 200)], ids=lambda v: str(v))
def test_fused_mlp_pingpong_kernel(m, hidden, monkeypatch):
    """The same switch on the other two-dot program (a GEMM, ReLU, a second GEMM), 128-row tiles:
    313 / 157 row tiles over the SMs."""
    kernel, args, grid, out, ref = mlp_chain_args(m, 64, hidden, 128, tile_m=128, seed=m + 1)
    _run_pingpong_kernel(kernel, args, grid, monkeypatch)
    _close(out, ref, 1e-2, 2e-2)


@pytest.mark.parametrize("tile_n", [64, 32])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("bh,seq", [(4, 1000), (40, 1024), (3, 77), (1, 1)], ids=lambda v: str(v))
def test_attention_256_row_tiles(bh, seq, dtype, causal, tile_n):
    """256-row query tiles at head dim 64 (session 17): four consumer warp groups (640 threads,
    setmaxnreg 24 / 112), persistent or heavy-first, against the fp32 reference (NaN-prefilled)."""
    rc.clear_caches()
    kernel, args, grid, out, ref = attention_args(bh, seq, 64, 256, tile_n, causal=causal, dtype=dtype,
                                                  seed=seq + tile_n + 17)
    program = _run(kernel, args, grid)
    assert program.kind == "chained" and program.chained["threads"] == 640, program.remarks
    _close_for(dtype, out, ref)


def test_attention_256_row_tiles_head_dim_128_fall_back():
    """At head dim 128 four consumer warp groups' registers do not hold the tiles: refused at the
    user's line, the SIMT path runs the program (right, slower)."""
    rc.clear_caches()
    kernel, args, grid, out, ref = attention_args(2, 300, 128, 256, 32, seed=71)
    program = _run(kernel, args, grid)
    assert program.kind != "chained" and any("tile rows 256" in r for r in program.remarks), program.remarks
    _close(out, ref, 2e-3, 1e-2)


@pytest.mark.parametrize("next_s", ["1", "2"])
@_more_instances_than_sms
def test_attention_next_first_dot(bh, seq, d, dtype, causal, tile_m, tile_n, next_s, monkeypatch):
    """TILEORCH_ATTN_NEXT_S=1/2 on the persistent kernel (forced for causal programs too): each
    instance's epilogue overlaps the next instance's first dot.  More instances than SMs (320 /
    288 / 300 program instances at 128-row tiles), so every CTA hands over several times; 77 keys:
    one masked tile per instance; (1, 1): one instance, no hand-over."""
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", next_s)
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "1")
    kernel, args, grid, out, ref = attention_args(bh, seq, d, tile_m, tile_n, causal=causal, dtype=dtype,
                                                  seed=seq + d + 11)
    program = _run_uncached(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    if (d, tile_n) == (128, 128):  # the next S beside the 128-wide accumulator: refused (registers)
        assert "next_s" not in program.chained["persistent"] and "next_s_off" in program.chained
    else:
        assert program.chained["persistent"]["next_s"] == {"1": "after_last", "2": "back_to_back"}[next_s]
    _close_for(dtype, out, ref)


@pytest.mark.parametrize("next_s", ["1", "2"])
@pytest.mark.parametrize("m,hidden", [(40000, 512), (20000, 200)], ids=lambda v: str(v))
def test_fused_mlp_next_first_dot(m, hidden, next_s, monkeypatch):
    """The same switch on the other two-dot program (a GEMM, ReLU, a second GEMM), 313 / 157
    row tiles over the SMs."""
    monkeypatch.setenv("TILEORCH_ATTN_NEXT_S", next_s)
    kernel, args, grid, out, ref = mlp_chain_args(m, 64, hidden, 128, seed=m)
    program = _run_uncached(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    assert program.chained["persistent"]["next_s"] == {"1": "after_last", "2": "back_to_back"}[next_s]
    _close(out, ref, 1e-2, 2e-2)


@pytest.mark.parametrize("out_dtype", ["bfloat16", "float16"])
@pytest.mark.parametrize("bh,seq", [(3, 1024), (2, 77)], ids=lambda v: str(v))
def test_attention_output_of_the_other_16_bit_type(bh, seq, out_dtype):
    """fp16 operands with a bf16 output and bf16 operands with an fp16 output: the packed epilogue
    rounds each pair to the store's type (it packed to the operands' type before)."""
    from tileorch.testing.attention_programs import attention_fwd_natural

    g = torch.Generator(device="cpu").manual_seed(seq + 5)
    dt = torch.float16 if out_dtype == "bfloat16" else torch.bfloat16
    q, k, v = (torch.randn(bh, seq, 64, generator=g).to("cuda", dt) for _ in range(3))
    out = torch.full((bh, seq, 64), float("nan"), device="cuda", dtype=getattr(torch, out_dtype))
    scale = 1 / 64 ** 0.5
    ref = torch.softmax((q.float() @ k.float().transpose(1, 2)) * scale, dim=-1) @ v.float()
    program = _run(attention_fwd_natural, (q, k, v, out, scale, 5.0, seq, 128, 128, 64, False),
                   ((seq + 127) // 128, bh, 1))
    assert program.kind == "chained", program.remarks
    _close(out, ref, 1e-2, 3e-2, scale_tol=3e-2)


@pytest.mark.parametrize("layout", ["odd_row_stride", "misaligned_base"])
def test_attention_packed_epilogue_strided_output(layout, monkeypatch):
    """The packed epilogue's run-time test refuses an output whose pairs are not 4-byte aligned (a
    view of a wider buffer: odd row stride, or a base one element in): element-by-element stores."""
    monkeypatch.setenv("TILEORCH_ATTN_EPILOGUE", "packed")
    rc.clear_caches()
    bh, seq, d = 3, 1000, 64
    kernel, args, grid, out, ref = attention_args(bh, seq, d, 128, 128, seed=11)
    wide = torch.full((bh, seq, d + 1 if layout == "odd_row_stride" else d + 2), float("nan"), device="cuda",
                      dtype=out.dtype)
    view = wide[..., :d] if layout == "odd_row_stride" else wide[..., 1:d + 1]
    args = args[:3] + (view,) + args[4:]
    try:
        program = _run(kernel, args, grid)
    finally:
        rc.clear_caches()
    assert program.kind == "chained", program.remarks
    _close(view, ref, 2e-3, 1e-2)
    assert torch.isnan(wide[..., d:] if layout == "odd_row_stride" else wide[..., :1]).all(), "stores outside the view"


@pytest.mark.parametrize("tile_m,tile_n", [(128, 64), (64, 64), (128, 128)], ids=lambda v: str(v))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("bh,seq", [(3, 1000), (2, 2048), (2, 77)], ids=lambda v: str(v))
def test_attention_head_dim_256(bh, seq, dtype, causal, tile_m, tile_n):
    """Head dim 256 (a 128-register O accumulator per thread; 128x128 tiles on a one-stage ring)."""
    kernel, args, grid, out, ref = attention_args(bh, seq, 256, tile_m, tile_n, causal=causal, dtype=dtype,
                                                  seed=seq + tile_n)
    program = _run(kernel, args, grid)
    assert program.kind == "chained", f"attention left the tensor-core path: {program.remarks}"
    _close_for(dtype, out, ref)


@pytest.mark.parametrize("tile_m,tile_n", [(128, 128), (128, 64), (64, 64)], ids=lambda v: str(v))
@pytest.mark.parametrize("d", [64, 128, 256])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq,group", [(1000, 1), (1024, 2), (77, 1)], ids=lambda v: str(v))
def test_sample_style_attention(seq, group, causal, d, tile_m, tile_n):
    """The FlashAttention forward as NVIDIA's cuTile samples write it (attention_fwd_branchy: 4-D
    arrays, grouped KV heads, K through a view order, the mask in a branch inside the loop that
    cuTile splits into two loops and the tier fuses back)."""
    if d == 256 and tile_n == 128 and tile_m == 64:
        pytest.skip("not in the matrix")
    kernel, args, grid, out, ref = attention_branchy_args(2, 4, seq, d, tile_m, tile_n, causal=causal, group=group,
                                                          seed=seq + d)
    program = _run(kernel, args, grid)
    assert program.kind == "chained", f"attention left the tensor-core path: {program.remarks}"
    _close(out, ref, 2e-3, 1e-2)


def test_sample_style_attention_bf16():
    kernel, args, grid, out, ref = attention_branchy_args(2, 4, 1000, 128, causal=True, dtype="bfloat16", seed=3)
    program = _run(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    _close(out, ref, 1e-2, 3e-2, scale_tol=3e-2)


@pytest.mark.parametrize("tile_m,tile_n", [(128, 128), (128, 64), (64, 64)], ids=lambda v: str(v))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("d", [32, 16])
@pytest.mark.parametrize("bh,seq", [(4, 1000), (5, 77), (2, 4096)], ids=lambda v: str(v))
def test_attention_narrow_head_dims(bh, seq, d, dtype, causal, tile_m, tile_n):
    """Head dim 32 and 16: 64- and 32-byte rows, TMA boxes of the whole row with a 64B / 32B swizzle
    and WGMMA descriptors of the same swizzle (the tensor-core path, not the SIMT fallback)."""
    kernel, args, grid, out, ref = attention_args(bh, seq, d, tile_m, tile_n, causal=causal, dtype=dtype,
                                                  seed=seq + d + tile_n)
    program = _run(kernel, args, grid)
    assert program.kind == "chained", f"attention left the tensor-core path: {program.remarks}"
    assert [t["swizzle"] for t in program.chained["tmaps"]] == [2 * d] * 3
    _close_for(dtype, out, ref)


@pytest.mark.parametrize("tile_m,tile_n", [(128, 128), (64, 64)], ids=lambda v: str(v))
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq,group", [(1000, 1), (1024, 2), (77, 1)], ids=lambda v: str(v))
def test_sample_style_attention_head_dim_32(seq, group, causal, tile_m, tile_n):
    kernel, args, grid, out, ref = attention_branchy_args(2, 4, seq, 32, tile_m, tile_n, causal=causal, group=group,
                                                          seed=seq + 32)
    program = _run(kernel, args, grid)
    assert program.kind == "chained", f"attention left the tensor-core path: {program.remarks}"
    _close(out, ref, 2e-3, 1e-2)


@pytest.mark.parametrize("m,d,hidden,dout,tile_m,tile_h", [(1000, 32, 512, 32, 128, 64), (300, 64, 200, 32, 64, 32),
                                                           (256, 16, 128, 64, 128, 32)], ids=lambda v: str(v))
def test_fused_mlp_narrow_tiles(m, d, hidden, dout, tile_m, tile_h):
    """The MLP chain with 32- and 16-wide operand rows (N-major B tiles with a 64B / 32B swizzle)."""
    kernel, args, grid, out, ref = mlp_chain_args(m, d, hidden, dout, tile_m, tile_h, seed=m)
    program = _run(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    _close(out, ref, 1e-2, 2e-2)


@pytest.mark.parametrize("m,hidden", [(1000, 512), (256, 200)], ids=lambda v: str(v))
def test_fused_mlp_two_gemms(m, hidden):
    kernel, args, grid, out, ref = mlp_chain_args(m, 64, hidden, 128, seed=m)
    program = _run(kernel, args, grid)
    assert program.kind == "chained", program.remarks
    _close(out, ref, 1e-2, 2e-2)


@pytest.mark.parametrize("d,tile_m,tile_n,softcap,out_dtype", [(64, 128, 128, False, "float32"),
                                                               (32, 128, 32, False, "float16"),
                                                               (128, 64, 64, True, "float16"),
                                                               (32, 64, 64, True, "bfloat16")])
@pytest.mark.parametrize("bh,seq", [(3, 1000), (2, 77)], ids=lambda v: str(v))
def test_natural_exp_attention(bh, seq, d, tile_m, tile_n, softcap, out_dtype):
    """attention_fwd_natural: exp (not exp2), the scale on the scores, an optional logit soft cap
    (tanh), an output of another type (bf16 row: inputs bf16 too)."""
    from tileorch.testing.attention_programs import attention_fwd_natural

    g = torch.Generator(device="cpu").manual_seed(seq + d)
    dt = torch.bfloat16 if out_dtype == "bfloat16" else torch.float16
    q, k, v = (torch.randn(bh, seq, d, generator=g).to("cuda", dt) for _ in range(3))
    if softcap:
        k = (4 * k).to(dt)
    out = torch.full((bh, seq, d), float("nan"), device="cuda", dtype=getattr(torch, out_dtype))
    scale, cap = 1 / d ** 0.5, 5.0
    s = q.float() @ k.float().transpose(1, 2)
    if softcap:
        s = cap * torch.tanh(s / cap)
    ref = torch.softmax(s * scale, dim=-1) @ v.float()
    grid = ((seq + tile_m - 1) // tile_m, bh, 1)
    program = _run(attention_fwd_natural, (q, k, v, out, scale, cap, seq, tile_m, tile_n, d, softcap), grid)
    assert program.kind == "chained", program.remarks
    if dt == torch.bfloat16:
        _close(out, ref, 1e-2, 3e-2, scale_tol=3e-2)
    else:
        _close(out, ref, 2e-3, 1e-2)


@pytest.mark.parametrize("d,tile_m,tile_n", [(64, 128, 128), (32, 128, 64), (128, 64, 64)], ids=lambda v: str(v))
@pytest.mark.parametrize("bh,seq", [(3, 1000), (2, 200)], ids=lambda v: str(v))
def test_transposed_k_attention(bh, seq, d, tile_m, tile_n):
    """attention_fwd_kt: K stored [BH, D, S] (the first dot's B N-major).  TMA needs 16-byte row
    strides: seq a multiple of 8."""
    from tileorch.testing.attention_programs import attention_fwd_kt

    g = torch.Generator(device="cpu").manual_seed(seq + d)
    q, k, v = (torch.randn(bh, seq, d, generator=g).to("cuda", torch.float16) for _ in range(3))
    kt = k.transpose(1, 2).contiguous()
    out = torch.full((bh, seq, d), float("nan"), device="cuda", dtype=torch.float16)
    scale = 1 / d ** 0.5
    ref = torch.softmax((q.float() @ k.float().transpose(1, 2)) * scale, dim=-1) @ v.float()
    grid = ((seq + tile_m - 1) // tile_m, bh, 1)
    program = _run(attention_fwd_kt, (q, kt, v, out, scale * 1.4426950408889634, seq, tile_m, tile_n, d), grid)
    assert program.kind == "chained", program.remarks
    _close(out, ref, 2e-3, 1e-2)


@pytest.mark.parametrize("m,d,hidden,dout,tile_m,tile_h", [(1000, 64, 512, 128, 128, 64), (300, 32, 200, 32, 64, 32)],
                         ids=lambda v: str(v))
def test_silu_mlp_chain(m, d, hidden, dout, tile_m, tile_h):
    from tileorch.testing.attention_programs import mlp_silu

    g = torch.Generator(device="cpu").manual_seed(m)
    x = torch.randn(m, d, generator=g).to("cuda", torch.float16)
    w1 = (torch.randn(d, hidden, generator=g) / d ** 0.5).to("cuda", torch.float16)
    w2 = (torch.randn(hidden, dout, generator=g) / hidden ** 0.5).to("cuda", torch.float16)
    y = torch.full((m, dout), float("nan"), device="cuda", dtype=torch.float32)
    h = x.float() @ w1.float()
    ref = 0.5 * ((h * torch.sigmoid(h)).half().float() @ w2.float())
    program = _run(mlp_silu, (x, w1, w2, y, 0.5, tile_m, tile_h, d, dout), ((m + tile_m - 1) // tile_m, 1, 1))
    assert program.kind == "chained", program.remarks
    _close(y, ref, 1e-2, 2e-2)


@pytest.mark.parametrize("tile_m,tile_n", [(64, 64), (128, 64), (128, 128)], ids=lambda v: str(v))
@pytest.mark.parametrize("d", [64, 128])
@pytest.mark.parametrize("bh,seq", [(3, 1000), (2, 77), (1, 1), (2, 4096)], ids=lambda v: str(v))
def test_attention_with_log_sum_exp(bh, seq, d, tile_m, tile_n):
    """attention_fwd_lse: O and the rows' log-sum-exp (ct.log, a second store of a [1, TILE_M] row
    vector) on the tensor-core path; references torch fp32 (softmax, logsumexp of the scaled
    scores), both outputs NaN-prefilled (ragged rows: every row of LSE written once)."""
    from tileorch.testing.attention_programs import attention_fwd_lse

    g = torch.Generator(device="cpu").manual_seed(seq + d)
    q, k, v = (torch.randn(bh, seq, d, generator=g).to("cuda", torch.float16) for _ in range(3))
    out = torch.full((bh, seq, d), float("nan"), device="cuda", dtype=torch.float16)
    lse = torch.full((bh, seq), float("nan"), device="cuda", dtype=torch.float32)
    scale = 1 / d ** 0.5
    s = (q.float() @ k.float().transpose(1, 2)) * scale
    ref, ref_lse = torch.softmax(s, dim=-1) @ v.float(), torch.logsumexp(s, dim=-1)
    program = _run(attention_fwd_lse, (q, k, v, out, lse, scale, seq, tile_m, tile_n, d),
                   ((seq + tile_m - 1) // tile_m, bh, 1))
    assert program.kind == "chained", program.remarks
    _close(out, ref, 2e-3, 1e-2)
    assert not torch.isnan(lse).any(), "unwritten (NaN) log-sum-exp rows"
    torch.testing.assert_close(lse, ref_lse, atol=1e-3, rtol=1e-4)


@pytest.mark.parametrize("m,hidden,tile_m,tile_h", [(1000, 512, 128, 64), (300, 200, 64, 64), (77, 96, 128, 32)],
                         ids=lambda v: str(v))
def test_mlp_bias_in_the_loop(m, hidden, tile_m, tile_h):
    """mlp_bias: relu(X W1 + b1) W2 with the bias row loaded inside the loop (each consumer thread
    reads its columns of tile j's bias slice from global memory); torch fp32 reference (the hidden
    activation rounded to fp16 as the program does), NaN-prefilled fp32 output."""
    from tileorch.testing.attention_programs import mlp_bias

    g = torch.Generator(device="cpu").manual_seed(m + hidden)
    d, dout = 64, 64
    x = torch.randn(m, d, generator=g).to("cuda", torch.float16)
    w1 = (torch.randn(d, hidden, generator=g) / 8).to("cuda", torch.float16)
    w2 = (torch.randn(hidden, dout, generator=g) / hidden ** 0.5).to("cuda", torch.float16)
    b1 = torch.randn(1, hidden, generator=g).to("cuda", torch.float16)
    y = torch.full((m, dout), float("nan"), device="cuda", dtype=torch.float32)
    h = torch.relu(x.float() @ w1.float() + b1.float()).half().float()
    program = _run(mlp_bias, (x, w1, w2, b1, y, tile_m, tile_h, d, dout), ((m + tile_m - 1) // tile_m, 1, 1))
    assert program.kind == "chained", program.remarks
    _close(y, h @ w2.float(), 1e-2, 2e-2)


def test_attention_sass_has_wgmma(tmp_path):
    if shutil.which("cuobjdump") is None:
        pytest.skip("cuobjdump not on PATH")
    kernel, args, grid, out, ref = attention_args(2, 256, 64)
    program = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent").program
    assert program.kind == "chained" and program.cubin is not None
    path = tmp_path / "k.cubin"
    path.write_bytes(program.cubin)
    sass = subprocess.run(["cuobjdump", "-sass", str(path)], capture_output=True, text=True, timeout=120).stdout
    assert sass.count("HGMMA") >= 2, "expected the two dots' WGMMAs (HGMMA) in the SASS"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("groups,tile_n,idle", [(3, 128, "compute"), (3, 128, "pass"), (3, 64, "compute"),
                                                (4, 64, "compute"), (4, 64, "pass")], ids=lambda v: str(v))
@pytest.mark.parametrize("bh,seq", [(300, 1024), (40, 1000), (7, 333), (3, 77), (1, 1)], ids=lambda v: str(v))
def test_attention_row_groups(bh, seq, groups, tile_n, idle, dtype, monkeypatch):
    """TILEORCH_ATTN_ROW_GROUPS=3 / 4 (three consumer warp groups of 160 registers over 192 rows, or four of 112
    over 256 with 64-wide key tiles: 64-row slices of the 128-row instances of one head sharing each K/V tile):
    bit-identical to the default kernel (the same ops per row) and within the fp32 reference; more work units
    than SMs at (300, 1024); heads of 1-8 instances (partial units); NaN-prefilled outputs."""
    kernel, args, grid, out, ref = attention_args(bh, seq, 64, 128, tile_n, dtype=dtype, seed=seq + bh + tile_n)
    monkeypatch.setenv("TILEORCH_ATTN_IDLE_SLICES", idle)
    monkeypatch.setenv("TILEORCH_ATTN_ROW_GROUPS", "0")
    base = _run_uncached(kernel, args, grid)
    assert base.kind == "chained" and "row_groups" not in base.chained["persistent"], base.chained
    want = out.clone()
    out.fill_(float("nan"))
    monkeypatch.setenv("TILEORCH_ATTN_ROW_GROUPS", str(groups))
    program = _run_uncached(kernel, args, grid)
    assert program.kind == "chained" and program.chained["persistent"].get("row_groups") == groups, program.remarks
    _close_for(dtype, out, ref)
    assert torch.equal(out.view(torch.int16), want.view(torch.int16)), "not bit-identical to the default kernel"


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("d,tile_n,groups", [(64, 64, 4), (32, 64, 4), (64, 128, 0), (128, 64, 0)],
                         ids=lambda v: str(v))
@pytest.mark.parametrize("bh,seq,declined", [(300, 1024, False), (160, 1000, False), (40, 1000, True), (7, 333, True)],
                         ids=lambda v: str(v))
def test_attention_row_groups_default(bh, seq, declined, d, tile_n, groups, dtype, monkeypatch):
    """The default TILEORCH_ATTN_ROW_GROUPS=auto (session 35): four consumer warp groups over 256 rows where their
    112 registers hold S, P and O (d64 and d32 with 64-wide key tiles), the two-group kernel elsewhere (d64 128x128,
    d128: the rule's registers).  A launch whose four-group dealing would load its busiest CTA with more than 1.15x
    the default kernel's 64-row slices runs the two-group kernel, with a launch remark: on 132 SMs, (300, 1024):
    2400 instances, 38 slices against 40 (taken); (160, 1000): 20 against 20 (taken); (40, 1000): 6 against 8 and
    (7, 333): 2 against 4 (declined).  Bit-identical to ROW_GROUPS=0 (the same ops per row) and within the fp32
    reference; NaN-prefilled outputs."""
    kernel, args, grid, out, ref = attention_args(bh, seq, d, 128, tile_n, dtype=dtype, seed=seq + bh + d)
    monkeypatch.setenv("TILEORCH_ATTN_ROW_GROUPS", "0")
    base = _run_uncached(kernel, args, grid)
    assert base.kind == "chained" and "row_groups" not in base.chained["persistent"], base.chained
    want = out.clone()
    out.fill_(float("nan"))
    monkeypatch.delenv("TILEORCH_ATTN_ROW_GROUPS")
    rc.clear_caches()
    try:
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, args)
        torch.cuda.synchronize()
        entry = rc.compiled(kernel, rc.describe_arguments(kernel, args), "sm_90a", "persistent")
    finally:
        rc.clear_caches()
    program, said = entry.program, " ".join(entry.launch_remarks.values())
    assert program.kind == "chained" and program.chained["persistent"].get("row_groups", 0) == groups, program.remarks
    if torch.cuda.get_device_properties(0).multi_processor_count == 132:
        assert ("not used for this launch" in said) == (declined and groups > 0), said
    _close_for(dtype, out, ref)
    assert torch.equal(out.view(torch.int16), want.view(torch.int16)), "not bit-identical to ROW_GROUPS=0"
