"""Seventh user sweep (``tileorch.testing.user_programs7``: NVIDIA's cuTile samples' shapes and LLM
building blocks): each program exported through the launcher's argument description and cuTile's
exporter (no GPU) and compiled for sm_90a takes the path its entry names; a program a tensor-core
tier refuses says why at the user's line (a remark: no silent slow path), in the program's terms;
no internal error.

Found by this sweep (each test below failed before its fix):
- the samples' persistent grouped GEMM (a ``while`` loop storing tiles) and split-K with a lock and
  a count (stores under ``if count == 0``) were refused as "a memory token is used by 'scf.yield',
  an op TileAS does not order": now "memory is written inside a while loop" at the ``while`` /
  "memory is written under an if whose branches differ" at the ``if``;
- a dot operand read by ``ct.gather`` (the fused-MoE sample's token gather, an implicit-GEMM
  convolution's im2col rows) was refused as "expected a producer agent with 2 TMA tile loads (A and
  1 B); found 1 staged loads" at the loop: now "this dot operand is gathered" at the gather, and a
  B computed in the K loop (a W4A16 GEMM's int4 unpacking) "this dot operand is computed in the
  kernel" at the op computing it;
- ``ct.transpose(w.astype(ct.tfloat32))`` (``F.linear`` in tf32) was refused as "the dot's MMA
  atom is #nv_tileas.fma<[1, 1, 1]>": tileas-fold-tf32-operands now moves the transpose before
  the conversion and the GEMM runs on the tier;
- MLA's scores split over a no-position and a RoPE head-dim part (a dot accumulating into another
  dot's result) were refused as "3 dots in one K loop that do not read the same A tile" (dots
  sharing A): now named at the second dot, with the first dot's line;
- an e8m0 tile (MX block scales) made the SIMT lowering raise an unlocated NotImplementedError
  while it sized the loads: now the located "not supported yet" at the load."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs7  # noqa: E402
from tileorch.testing.user_programs7 import PROGRAMS  # noqa: E402

SOURCE = str(Path(user_programs7.__file__))


def test_the_sweep_has_its_programs():
    assert len(PROGRAMS) >= 40
    assert {p.path for p in PROGRAMS.values()} == {"gemm", "simt", "error"}
    for name, p in PROGRAMS.items():
        assert p.outputs, name
        assert (p.kernel.__doc__ or p.kernel._annotated_function.pyfunc.__doc__), name


def _compile(name):
    from tileorch.testing.compile_memo import compile_once
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    return compile_once(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)


def _has_dot(name) -> bool:
    src = inspect.getsource(PROGRAMS[name].kernel._annotated_function.pyfunc)
    return "ct.mma(" in src or "ct.matmul(" in src


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path != "error"))
def test_program_compiles_on_its_path(name):
    p = PROGRAMS[name]
    prog = _compile(name)
    remarks = list(prog.remarks)
    assert prog.kind == p.path, remarks
    assert not [r for r in remarks if "internal error" in r or "left a kernel unlowered" in r], remarks
    assert not [r for r in remarks if "memory token" in r or "outside the agents" in r or "TMA tile loads" in r
                or "#nv_tileas." in r], remarks
    refusals = [r for r in remarks if "refused" in r]
    if p.error:  # the tier's refusal, at the user's line, saying why
        assert any(r.startswith(SOURCE + ":") and p.error in r for r in refusals), remarks
        assert "mma.sync" in prog.ptx  # the SIMT path's dots on tensor cores
    else:
        assert not refusals, remarks
    if p.path == "gemm":
        assert "wgmma.mma_async" in prog.ptx
    if p.path == "simt" and _has_dot(name):  # never silently: the tier's refusal says why
        assert p.error and refusals, remarks


@pytest.mark.parametrize("name", sorted(n for n, p in PROGRAMS.items() if p.path == "error"))
def test_program_the_compiler_cannot_take_is_a_located_error(name):
    """The block-scaled sample (``ct.mma_scaled``, a Blackwell instruction) and an e8m0 tile stop at
    the user's line with the located "not supported" of docs/cuda-tile.md."""
    from tileorch.diagnostics import CompileError, LocatedError
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS[name]
    with pytest.raises((LocatedError, CompileError)) as info:
        compile_program(cutile_bytecode(p.kernel, p.spec), name, arch="sm_90a", ptxas=False)
    message = str(info.value)
    assert message.startswith(SOURCE + ":") and "internal error" not in message, message
    assert p.error in message


def _line_of(kernel, text: str) -> int:
    """The source line of ``kernel`` holding ``text`` (first match)."""
    lines, first = inspect.getsourcelines(kernel._annotated_function.pyfunc)
    return first + next(i for i, ln in enumerate(lines) if text in ln)


@pytest.mark.parametrize("name, text, why", [
    ("moe_sorted_gather_gemm", "a = ct.gather(X,", "this dot operand is gathered"),
    ("moe_expert_offsets_gemm", "a = ct.gather(X,", "this dot operand is gathered"),
    ("grouped_gemm_lists_persistent", "while tile_idx >=", "memory is written inside a while loop"),
    ("mm_splitk_lock_counts", "if count == 0:", "memory is written under an if whose branches differ"),
    ("attn_mla_split_rope", "s = ct.mma(qr,", "this dot adds its product to the result of the dot at line"),
    ("mm_w4a16_groupwise", "w = ((q.astype(", "this dot operand is computed in the kernel"),
])
def test_a_refusal_names_the_users_line_in_the_users_terms(name, text, why):
    p = PROGRAMS[name]
    (refusal,) = [r for r in _compile(name).remarks if "refused" in r]
    assert refusal.startswith(f"{SOURCE}:{_line_of(p.kernel, text)}:"), refusal
    assert why in refusal, refusal
    for old in ("memory token", "TMA tile loads", "do not read the same A tile"):
        assert old not in refusal


def test_the_split_product_refusal_names_the_first_dots_line():
    p = PROGRAMS["attn_mla_split_rope"]
    (refusal,) = [r for r in _compile("attn_mla_split_rope").remarks if "refused" in r]
    assert f"the dot at line {_line_of(p.kernel, 's = ct.mma(qn,')}" in refusal


def test_token_refusals_without_source_locations():
    """:func:`token_use_error` on IR without file locations: a while loop and an if around the
    token's yield say so at those ops; another user names the op."""
    from xdsl.dialects import arith, scf
    from xdsl.dialects.builtin import i1
    from xdsl.ir import Block, Region

    from tileorch.transforms.tileaa_to_tileas.convert import IF_STORE, WHILE_STORE, token_use_error

    c = arith.ConstantOp.from_int_and_width(1, i1)
    y_then, y_else = scf.YieldOp(), scf.YieldOp()
    branch = scf.IfOp(c.result, [], Region(Block([y_then])), Region(Block([y_else])))
    err = token_use_error(y_then)
    assert err.op is branch and err.message == IF_STORE
    inner = scf.YieldOp()
    nested = scf.IfOp(c.result, [], Region(Block([inner])), Region(Block([scf.YieldOp()])))
    loop = scf.WhileOp([], [], Region(Block([scf.ConditionOp(c.result)])), Region(Block([nested, scf.YieldOp()])))
    err = token_use_error(inner)
    assert err.op is loop and err.message == WHILE_STORE
    other = arith.AddiOp(c.result, c.result)
    assert "a memory token is used by 'arith.addi'" in token_use_error(other).message


def test_an_unsupported_element_type_is_located_at_its_load():
    """Found by this sweep: an e8m0 tile made the SIMT lowering raise NotImplementedError while it
    sized the program's loads (before any op was checked): now every op's element types are checked
    first and the error names the load's line."""
    from tileorch.diagnostics import LocatedError
    from tileorch.driver import compile_program
    from tileorch.testing.export import cutile_bytecode

    p = PROGRAMS["mx_scales_to_f32"]
    with pytest.raises(LocatedError) as info:
        compile_program(cutile_bytecode(p.kernel, p.spec), "mx_scales_to_f32", arch="sm_90a", ptxas=False)
    assert str(info.value).startswith(f"{SOURCE}:{_line_of(p.kernel, 'ct.load(S,')}:"), str(info.value)


def test_the_launcher_takes_e8m0_arrays():
    from tileorch.launchers import cutile as rc

    assert "float8_e8m0fnu" in rc.SUPPORTED_DTYPES and rc._ITEMSIZE["float8_e8m0fnu"] == 1
