"""The chained-dots kernel with intra-warp-group overlap (``TILEORCH_ATTN_OVERLAP=1``): tile 0
peeled, tile j's ``Q K^T`` issued while tile j-1's ``P V`` is in flight, the last ``P V`` after the
loop.  Checked on the CPU in the PTX: the WGMMA fence/commit/wait sequence of each path (peeled
tile, loop, last tile) and the empty-barrier release after the ``wait_group 0`` that covers the
stage's last reader; no instruction touches the registers of a WGMMA in flight (S of tile j until
``wait_group 1``, P and O of tile j-1 until ``wait_group 0``); each WGMMA chain's accumulator
registers tied; P_j packed into its 16-bit fragment only after the ``wait_group 0``; no ptxas on
the machine serializes a WGMMA (C7513: ptxas 13.0 did for every overlapped kernel that packed P_j
during the overlap, and in the serialized code dropped the high-word add of the second dot's B
descriptors, ``UIADD3.X``: an out-of-range shared address on the H200, 2026-12-02).  ``tileorch check`` proves the overlapped pipeline and
rejects a release before the covering wait.  Needs cuda-tile."""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
pytestmark = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

CONFIGS = [(64, 128, 64, False), (128, 128, 128, True), (64, 128, 128, False)]  # d, tile_m, tile_n, causal
WGMMA = re.compile(r"wgmma\.mma_async\.sync\.aligned\.m64n\d+k16\S* \{([^}]*)\}, (\{[^}]*\}|%rd\d+), ")


def _attention(d, tile_m, tile_n, causal):
    from test_chained_dots import _arrays

    from tileorch.testing.attention_programs import attention_fwd

    return attention_fwd, _arrays(4, (5, 77, d)) + (0.18, 77, tile_m, tile_n, d, causal)


def _compile(monkeypatch, cfg):
    """The overlapped kernel with its loop body in one copy: the structure checks below read the
    PTX in text order, and the whole-tile copy of the iteration (mask_bounds.py) puts the join
    block's ``wait_group 0`` elsewhere in the text.  Both copies' protocol is checked by running
    them in the PTX emulator (test_chained_emulated.py: the causal kernel's interior tile takes the
    copy without masks, ragged tiles the other) and on the GPU."""
    from test_chained_dots import _compile as compile_

    from tileorch.transforms.tileas import chained_dots

    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    monkeypatch.setenv("TILEORCH_ATTN_PERSISTENT", "0")  # one instance per CTA: the text order below
    monkeypatch.setattr(chained_dots, "interior_masks", lambda body: [])
    return compile_(*_attention(*cfg))


@pytest.fixture(scope="module", params=CONFIGS, ids=lambda c: "d{}-{}x{}{}".format(*c[:3], "-causal" * c[3]))
def overlapped(request):
    mp = pytest.MonkeyPatch()
    try:
        yield _compile(mp, request.param)
    finally:
        mp.undo()


def _consumer(ptx: str) -> list[str]:
    """The consumer warp groups' instructions (after setmaxnreg.inc), one per line, asm braces
    and comments dropped."""
    body = ptx.split("setmaxnreg.inc", 1)[1]
    out = []
    for line in body.splitlines():
        line = line.split("//")[0].strip()
        if line and line not in ("{", "}") and not line.startswith(".reg") and not line.startswith("setp.ne.b32 p, 1, 0"):
            out.append(line)
    return out


def _events(lines: list[str]) -> str:
    """One letter per WGMMA-protocol instruction: T full/Q wait, F fence, S smem-A WGMMA, R
    register-A WGMMA, C commit, 0/1 wait_group N, A mbarrier.arrive (release), L a label."""
    ev = []
    for x in lines:
        if x.startswith("mbarrier.try_wait"):
            ev.append("T")
        elif x.startswith("wgmma.fence"):
            ev.append("F")
        elif x.startswith("wgmma.mma_async"):
            ev.append("R" if WGMMA.match(x).group(2).startswith("{") else "S")
        elif x.startswith("wgmma.commit_group"):
            ev.append("C")
        elif x.startswith("wgmma.wait_group"):
            ev.append(x.split()[-1].rstrip(";"))
        elif x.startswith("mbarrier.arrive"):
            ev.append("A")
    return "".join(ev)


def test_overlapped_wgmma_protocol(overlapped):
    """Peeled tile 0: wait Q, wait full[0], S_0, wait_group 0.  Loop: wait full[j], S_j committed,
    P_{j-1} V_{j-1} committed, wait_group 1 (S_j landed, P V in flight), wait_group 0, release
    stage j-1.  After the loop: the last P V, wait_group 0, release its stage.  Nothing else."""
    p = overlapped
    assert p.kind == "chained" and p.chained["pipelined"], p.remarks
    d, tn = p.chained["d"], p.chained["tn"]
    s, r = "S" * (d // 16), "R" * (tn // 16)
    ev = _events(_consumer(p.ptx))
    # (the producer's empty waits are placed after the consumer's code: trailing T)
    assert re.fullmatch(rf"TTF{s}C0TF{s}CF{r}C10AF{r}C0AT*", ev), ev


def _regs(text: str) -> set[str]:
    return set(re.findall(r"%r\d+", text))


def _writes(line: str) -> set[str]:
    m = re.match(r"(?:@!?%p\d+ )?[\w.:]+\s+(%r\d+)", line)
    return {m.group(1)} if m and not line.startswith(("st.", "mbarrier", "wgmma", "bra")) else set()


def test_in_flight_registers_are_not_touched(overlapped):
    """Between the loop's S_j issue and ``wait_group 1`` no instruction but a WGMMA names S_j's
    registers; between P_{j-1} V_{j-1}'s issue and ``wait_group 0`` none names its A (P) or
    accumulator (O) registers; every WGMMA of a chain lists the same accumulator registers (tied),
    and the loop's P V reads P and O from the registers the loop carries (the copies after the
    wait), not from registers computed during the wait."""
    lines = _consumer(overlapped.ptx)
    i_w1 = next(i for i, x in enumerate(lines) if x.startswith("wgmma.wait_group") and x.rstrip(";").endswith("1"))
    i_w0 = next(i for i in range(i_w1, len(lines)) if lines[i].startswith("wgmma.wait_group"))
    chain = [i for i in range(i_w1) if lines[i].startswith("wgmma.mma_async")]
    # the loop's two chains: the last d/16 smem WGMMAs (S_j) and tn/16 register-A ones (P V) before wait 1
    s_idx = [i for i in chain if WGMMA.match(lines[i]).group(2).startswith("%rd")]
    r_idx = [i for i in chain if WGMMA.match(lines[i]).group(2).startswith("{")]
    d, tn = overlapped.chained["d"], overlapped.chained["tn"]
    s_idx, r_idx = s_idx[-(d // 16):], r_idx[-(tn // 16):]
    s_acc = {WGMMA.match(lines[i]).group(1) for i in s_idx}
    o_acc = {WGMMA.match(lines[i]).group(1) for i in r_idx}
    assert len(s_acc) == 1 and len(o_acc) == 1, "a WGMMA chain's accumulator registers are not tied"
    s_regs, o_regs = _regs(s_acc.pop()), _regs(o_acc.pop())
    p_regs = set().union(*(_regs(WGMMA.match(lines[i]).group(2)) for i in r_idx))
    assert len(s_regs) == tn // 2 and len(o_regs) == d // 2 and len(p_regs) == tn // 4
    for i in range(s_idx[0] + 1, i_w1):
        if not lines[i].startswith("wgmma"):
            assert not _regs(lines[i]) & s_regs, f"S_j registers touched in flight: {lines[i]}"
    for i in range(r_idx[0] + 1, i_w0):
        if not lines[i].startswith("wgmma"):
            assert not _regs(lines[i]) & (p_regs | o_regs), f"P/O registers of P V touched in flight: {lines[i]}"
    # after wait_group 0: the loop writes the carried P registers only by the packing it yields
    later = [x for x in lines[i_w0:] if _writes(x) & p_regs]
    assert later and all(re.match(r"cvt\.rn\.b?f16x2\.f32", x) for x in later[:len(p_regs)]), later[:4]
    assert not any(_writes(x) & p_regs for x in lines[r_idx[-1] + 1:i_w0])


def _loop_chains(p) -> tuple[list[str], list[int], list[int], int, int]:
    """(consumer lines, the loop's S_j WGMMA indices, its P V WGMMA indices, wait_group 1, wait_group 0)."""
    lines = _consumer(p.ptx)
    i_w1 = next(i for i, x in enumerate(lines) if x.startswith("wgmma.wait_group") and x.rstrip(";").endswith("1"))
    i_w0 = next(i for i in range(i_w1 + 1, len(lines)) if lines[i].startswith("wgmma.wait_group"))
    chain = [i for i in range(i_w1) if lines[i].startswith("wgmma.mma_async")]
    d, tn = p.chained["d"], p.chained["tn"]
    s_idx = [i for i in chain if WGMMA.match(lines[i]).group(2).startswith("%rd")][-(d // 16):]
    r_idx = [i for i in chain if WGMMA.match(lines[i]).group(2).startswith("{")][-(tn // 16):]
    return lines, s_idx, r_idx, i_w1, i_w0


def test_p_is_packed_after_the_wait(overlapped):
    """Tile j's softmax (between ``wait_group 1`` and ``wait_group 0``) packs nothing: the 16-bit
    P fragment is made after the wait, so no WGMMA input is written while P_{j-1} V_{j-1} runs."""
    lines, _, _, i_w1, i_w0 = _loop_chains(overlapped)
    assert not [x for x in lines[i_w1:i_w0] if re.match(r"cvt\.rn\.b?f16x2", x)]


def _ptxas_on_machine() -> list[str]:
    import shutil

    from tileorch.backend.ptxas import ptxas_path

    found = [ptxas_path(), shutil.which("ptxas"), "/usr/local/cuda/bin/ptxas"]
    out = []
    for p in found:
        if p and os.path.exists(p) and os.path.realpath(p) not in {os.path.realpath(q) for q in out}:
            out.append(p)
    return out


def _version(exe: str) -> str:
    return subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60).stdout


def test_no_ptxas_on_the_machine_serializes(overlapped, tmp_path):
    """Every ptxas found (the compile's, and the one on PATH: CUDA 13.0 on the H200 host) keeps the
    WGMMAs asynchronous (no C7513)."""
    path = tmp_path / "k.ptx"
    path.write_text(overlapped.ptx)
    for exe in _ptxas_on_machine():
        run = subprocess.run([exe, "-arch=sm_90a", "-v", str(path), "-o", os.devnull], capture_output=True,
                             text=True, timeout=300)
        assert run.returncode == 0, run.stderr[-2000:]
        assert "C7513" not in run.stdout + run.stderr, (exe, [x for x in (run.stdout + run.stderr).splitlines()
                                                              if "C7513" in x])


def test_ptxas_serializes_no_wgmma(overlapped):
    assert not [r for r in overlapped.remarks if "C7513" in r or "serialized" in r], overlapped.remarks


def test_p_packed_during_the_overlap_is_caught(monkeypatch, tmp_path):
    """The bug of the overlapped kernel: P_j packed while P_{j-1} V_{j-1} is in flight (LLVM may put
    it in the registers that WGMMA reads; ptxas 13.0 serializes the kernel, C7513, and miscompiles
    its descriptors).  Re-created by moving the packing before the ``wait_group 0``: the structure
    test sees it, and so does a ptxas 13.0 where one is on the machine."""
    from tileorch.dialects import nvvm
    from tileorch.transforms.tileas import chained_dots

    def early(e, p, dtype):
        wait0 = [o for o in e.block.ops if isinstance(o, nvvm.WgmmaWaitGroupSyncOp)][-1]
        n = len(list(e.block.ops))
        regs = [chained_dots.pack16(e, p[2 * i], p[2 * i + 1], dtype) for i in range(len(p) // 2)]
        for op in list(e.block.ops)[n:]:  # the packing (and its conversions) before the wait
            op.detach()
            e.block.insert_op_before(op, wait0)
        return regs

    monkeypatch.setattr(chained_dots, "_pack_after_wait", early)
    p = _compile(monkeypatch, CONFIGS[0])
    assert p.chained["pipelined"]
    with pytest.raises(AssertionError):
        test_p_is_packed_after_the_wait(p)
    if any("13.0" in _version(x) for x in _ptxas_on_machine()):
        with pytest.raises(AssertionError, match="C7513"):
            test_no_ptxas_on_the_machine_serializes(p, tmp_path)


def _lowered(monkeypatch, cfg=CONFIGS[0]):
    from tileorch.driver import lower_program
    from tileorch.frontend.cutile import load
    from tileorch.registry import make_context
    from tileorch.launchers import cutile as rc

    monkeypatch.setenv("TILEORCH_ATTN_OVERLAP", "1")
    kernel, args = _attention(*cfg)
    ctx = make_context()
    module = load(rc.export_bytecode(kernel, rc.describe_arguments(kernel, args)), "<attn>", ctx)
    kind, lowered = lower_program(module, ctx)
    assert kind == "chained"
    return lowered


def test_check_proves_the_overlapped_pipeline_and_rejects_an_early_release(monkeypatch):
    from tileorch.analysis.explore import check
    from tileorch.analysis.extract import extract
    from tileorch.diagnostics import LocatedError

    lowered = _lowered(monkeypatch)
    (proto,) = extract(lowered)
    assert [a.name for a in proto.agents] == ["tma", "wg0", "wg1"]
    result = check(proto)
    assert result.ok, result.violation
    # the loop's release of stage j-1 moved before the wait_group 0 that covers P_{j-1} V_{j-1}
    arrive = next(o for o in lowered.walk() if o.name == "nvvm.mbarrier.arrive" and o.parent_op().name == "scf.for")
    wait0 = arrive.prev_op
    while wait0.name != "nvvm.wgmma.wait.group.sync.aligned":
        wait0 = wait0.prev_op
    arrive.detach()
    wait0.parent_block().insert_op_before(arrive, wait0)
    with pytest.raises(LocatedError, match="wait_group 1"):
        extract(lowered)


def _wgmma_descriptor_defs(ptx: str) -> list[str]:
    """The defining instruction of each register-A WGMMA's B descriptor (``%rdN``) in ``ptx``."""
    descs = re.findall(r"wgmma\.mma_async\.\S+ \{[^}]*\}, \{[^}]*\}, (%rd\d+),", ptx)
    defs = {}
    for line in ptx.splitlines():
        m = re.match(r"\s*[\w.]+\s+(%rd\d+),", line)
        if m:
            defs.setdefault(m.group(1), line.strip())
    return [defs.get(d, "?") for d in descs]


def test_second_dot_descriptors_are_built_from_two_words(overlapped):
    """Every register-A WGMMA's B descriptor is ``mov.b64 {lo, hi}`` (the high word a constant):
    no 64-bit add of a constant with stride and swizzle bits in its high word, which ptxas 13.0
    compiled without the high word's carry add for the overlapped kernel's last tile (the H200's
    wrong outputs and illegal addresses of ``TILEORCH_ATTN_OVERLAP=1``, 2026-12-02)."""
    defs = _wgmma_descriptor_defs(overlapped.ptx)
    assert defs and all(re.match(r"mov\.b64\s+%rd\d+, \{%r\d+, %r\d+\}", x) for x in defs), defs[:4]


def _high_word_writer(ins: list[str], i: int, reg: int) -> str | None:
    """None when the last write of uniform register ``reg`` before SASS instruction ``i`` (a
    straight-line scan back) can carry a descriptor's high word: an immediate with its stride /
    swizzle bits, a 64-bit add or move, a carry add (``UIADD3.X``), a value from vector code; else
    that instruction (e.g. the high half of a shared-address ``UIMAD.WIDE``: ptxas 13.0's bug)."""
    for k in range(i - 1, -1, -1):
        m = re.match(r"(?:@!?U?P\w+\s+)?([\w.]+)\s+UR(\d+)", ins[k])
        if not m or m.group(1).startswith(("HGMMA", "SYNCS", "UTMA", "USETMAXREG", "WARPGROUP")):
            continue
        op, dst = m.group(1), int(m.group(2))
        wide = ".64" in op or "WIDE" in op
        if dst != reg and not (wide and dst + 1 == reg):
            continue
        imms = [int(x, 16) for x in re.findall(r"-?0x[0-9a-f]+", ins[k])]
        if (any(abs(x) >= 1 << 29 for x in imms) or ".64" in op or op.startswith(("UMOV", "R2UR", "ULDC"))
                or op.startswith("UIADD3.X") or op.startswith("ULOP3")):
            return None
        return ins[k]
    return "no writer"


def _sass_bad_descriptors(sass: str) -> list[str]:
    ins = [re.sub(r"^/\*[0-9a-f]+\*/\s*", "", x.split(";")[0].strip()) for x in sass.splitlines()
           if re.search(r"/\*[0-9a-f]{4}\*/", x)]
    bad = []
    for i, x in enumerate(ins):
        m = re.search(r"HGMMA\.\S+ R\d+, (R\d+, )?gdesc\[UR(\d+)\]", x)
        if m:
            base = int(m.group(2))
            for hi in ([base + 3] if m.group(1) else [base + 1, base + 3]):
                w = _high_word_writer(ins, i, hi)
                if w is not None:
                    bad.append(f"{x} (UR{hi} from {w})")
    return bad


def test_sass_descriptors_keep_their_high_words(overlapped, tmp_path):
    """With every ptxas on the machine and a ``cuobjdump`` on PATH: every HGMMA's descriptor high
    words (SBO and swizzle mode) trace back to an immediate; the ptxas 13.0 miscompile (the high word
    of the last tile's B descriptors taken from the shared address, layout 0 and SBO 0) is caught
    by the same check on the old PTX (see the next test)."""
    import shutil

    cuobjdump = shutil.which("cuobjdump")
    if cuobjdump is None:
        pytest.skip("cuobjdump not on PATH")
    path = tmp_path / "k.ptx"
    path.write_text(overlapped.ptx)
    for exe in _ptxas_on_machine():
        cubin = tmp_path / "k.cubin"
        subprocess.run([exe, "-arch=sm_90a", str(path), "-o", str(cubin)], check=True, capture_output=True, timeout=300)
        sass = subprocess.run([cuobjdump, "-sass", str(cubin)], capture_output=True, text=True, timeout=120).stdout
        assert "HGMMA" in sass
        assert not _sass_bad_descriptors(sass), (exe, _sass_bad_descriptors(sass)[:3])


def test_the_old_descriptor_arithmetic_is_caught(monkeypatch, tmp_path):
    """The second dot's descriptors as they were (``(addr | C) + off`` in 64 bits): the PTX check
    fails, and where ptxas 13.0 and cuobjdump are on the machine so does the SASS check (the last
    tile's B descriptor high word taken from the shared address)."""
    import shutil

    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr, i64

    from tileorch.transforms.tileas import chained_dots

    def old(ck, e, b2_addr):
        b2_const, b2_offs = chained_dots._b_steps(ck.b2, ck.tn // 16)
        desc = e.v(arith.OrIOp(b2_addr, e.v(arith.ConstantOp(IntegerAttr(b2_const, i64)))))
        return [e.v(arith.AddiOp(desc, e.v(arith.ConstantOp(IntegerAttr(off // 16, i64))))) for off in b2_offs]

    monkeypatch.setattr(chained_dots, "_b2_descriptors", old)
    p = _compile(monkeypatch, CONFIGS[0])
    with pytest.raises(AssertionError):
        test_second_dot_descriptors_are_built_from_two_words(p)
    cuobjdump = shutil.which("cuobjdump")
    old_ptxas = [x for x in _ptxas_on_machine() if "V13.0." in _version(x)]
    if cuobjdump and old_ptxas:
        (tmp_path / "k.ptx").write_text(p.ptx)
        subprocess.run([old_ptxas[0], "-arch=sm_90a", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                       check=True, capture_output=True, timeout=300)
        sass = subprocess.run([cuobjdump, "-sass", str(tmp_path / "k.cubin")], capture_output=True, text=True,
                              timeout=120).stdout
        assert _sass_bad_descriptors(sass)
