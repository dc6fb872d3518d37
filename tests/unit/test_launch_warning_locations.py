"""Every warning the cuTile launcher gives about a launch names the kernel's source line (session 42, the house rule
"every message at the user's line"): ``file:line:col: warning: cuTile kernel NAME: ...`` at the kernel's ``def``
(:func:`tileorch.launchers.cutile_programs.kernel_location`).  One test per kind, with stand-ins (no GPU): the slower
path (a launch-time fallback to the SIMT path, the tier's refusal, ptxas's spills of the kernel that runs), a GEMM
option not applied, staged operands (the padded copies of ``StagingPlan``), the native route refused.  The expected
line is found in this file's own text (the line of ``def <name>(``), not taken from the code under test.  Before
session 42 none of these warnings had a location."""

from __future__ import annotations

import importlib.util
import re
import warnings
from pathlib import Path
from types import SimpleNamespace

import pytest

HAVE_CUTILE = importlib.util.find_spec("cuda") is not None and importlib.util.find_spec("cuda.tile") is not None
needs_cutile = pytest.mark.skipif(not HAVE_CUTILE, reason="cuda-tile (cuTile Python) is not installed")

if HAVE_CUTILE:
    import cuda.tile as ct

    @ct.kernel
    def scaled_copy(x, out, scale, tile: ct.Constant[int]):
        i = ct.bid(0)
        ct.store(out, index=(i,), tile=ct.load(x, index=(i,), shape=(tile,)) * scale)

    @ct.kernel(
        occupancy=2,  # (a decorator over several lines: the location is the def's line after it)
    )
    def pass_through(x, out, tile: ct.Constant[int]):
        ct.store(out, index=(ct.bid(0),), tile=ct.load(x, index=(ct.bid(0),), shape=(tile,)))


def _def_line(name: str, source: str = __file__) -> str:
    """``file:line:col`` of the first line of ``source`` that defines ``name`` (read here, as a user would)."""
    for i, text in enumerate(Path(source).read_text().splitlines(), start=1):
        if re.match(rf"\s*def {name}\(", text):
            return f"{source}:{i}:{len(text) - len(text.lstrip()) + 1}"
    raise AssertionError(f"no def {name}( in {source}")


def _caught(fn, category=None):
    from tileorch.diagnostics import PerformanceWarning

    with warnings.catch_warnings(record=True) as got:
        warnings.simplefilter("always")
        fn()
    return [str(w.message) for w in got if issubclass(w.category, category or PerformanceWarning)]


@needs_cutile
@pytest.mark.parametrize("kernel, name", [("scaled_copy", "scaled_copy"), ("pass_through", "pass_through")])
def test_the_kernels_location_is_its_def_line(kernel, name):
    from tileorch.launchers.cutile_programs import kernel_location, kernel_warning

    k = globals()[kernel]
    assert kernel_location(k) == _def_line(name)
    assert kernel_warning(k) == f"{_def_line(name)}: warning: cuTile kernel {name}"


@needs_cutile
@pytest.mark.parametrize("why, remarks", [
    ("A: batch stride 6406 bytes [the SIMT path runs it]", []),  # a launch-time fallback
    ("", ["k.py:3:4: warning: convert-nv-tileas-to-cutlass: refused [the SIMT path compiles it, slowly]"]),
    ("", ["warning: ptxas spilled 56 bytes of registers in gemm_x"]),  # the kernel that runs spills (a retile's)
])
def test_a_slower_path_warning_is_at_the_kernels_line(why, remarks):
    from tileorch.launchers import cutile as rc

    entry = rc._Compiled(SimpleNamespace(remarks=remarks, kind="simt"))
    said = _caught(lambda: rc._warn_slow_path(entry, scaled_copy, why))
    assert len(said) == 1 and said[0].startswith(f"{_def_line('scaled_copy')}: warning: cuTile kernel scaled_copy: "), said
    assert (why or remarks[0]) in said[0]


@needs_cutile
def test_an_option_not_applied_is_at_the_kernels_line():
    from tileorch.launchers import cutile as rc

    entry = rc._Compiled(SimpleNamespace(remarks=[], kind="simt"))
    said = _caught(lambda: rc._note_unused_options(entry, pass_through, "streamk", "auto"), UserWarning)
    assert len(said) == 1 and said[0].startswith(f"{_def_line('pass_through')}: warning: cuTile kernel pass_through: "
                                                 "schedule='streamk' not applied"), said


@needs_cutile
def test_the_native_route_refused_is_at_the_kernels_line():
    from tileorch.launchers import cutile_native

    cutile_native.refused.pop(scaled_copy, None)
    try:
        said = _caught(lambda: cutile_native._refuse(scaled_copy, "a stand-in reason"))
    finally:
        cutile_native.refused.pop(scaled_copy, None)
        cutile_native.routes.pop(scaled_copy, None)
    assert len(said) == 1 and said[0].startswith(f"{_def_line('scaled_copy')}: warning: cuTile kernel scaled_copy: "
                                                 "TILEORCH_CUTILE_NATIVE=1 not applied: a stand-in reason"), said


@needs_cutile
def test_staged_operands_are_at_the_kernels_line(monkeypatch, public=False):
    """A GEMM launch whose A rows are 1400 bytes apart (K = 700 f16: not a multiple of 16) copies A padded: the
    launcher's StagingPlan warning (its label) is at the program's def (sweep 31's ``gemm_f16_accumulator_bias_f16``,
    launched on the launcher harness of test_launch_strided_batch.py with a real StagingPlan)."""
    import test_launch_strided_batch as lsb

    from tileorch.launchers import gemm_host
    from tileorch.testing import user_programs31
    from tileorch.testing.user_programs31 import PROGRAMS

    class Image(lsb._Image):
        def prepare(self, a_ptr, b_ptr, c_ptr, m, n, k, sms, **kw):
            staging = gemm_host.StagingPlan(self.cfg, a_ptr, b_ptr, c_ptr, m, n, k, kw.get("batch", 1))
            return SimpleNamespace(staging=staging, launcher=lambda: (lambda s: None))

    monkeypatch.setattr(lsb, "_Image", Image)
    monkeypatch.setattr("tileorch.runtime.buffers.DeviceBuffer", lambda size: SimpleNamespace(ptr=1 << 40))
    name = "gemm_f16_accumulator_bias_f16"
    spec = list(PROGRAMS[name].spec)
    spec[0], spec[1] = ((100, 700), spec[0][1]), ((700, 80), spec[1][1])
    path, _, _, said, _ = lsb._launch(monkeypatch, "user_programs31", name, spec, public=public)
    where = _def_line(name, user_programs31.__file__)
    assert path == "gemm" and len(said) == 1, said
    assert said[0].startswith(f"{where}: warning: cuTile kernel {name}: A: row stride 1400 bytes"), said


@needs_cutile
def test_a_launch_time_fallback_is_at_the_programs_line(monkeypatch):
    """A batched GEMM whose A batch stride is 6406 bytes (no tensor map's batch dimension takes it): the SIMT path
    runs the launch and the warning is at the program's def in its own file (sweep 31)."""
    import test_launch_strided_batch as lsb

    from tileorch.testing import user_programs31
    from tileorch.testing.user_programs31 import PROGRAMS

    name = "gemm_batched_strided_batch_view"
    spec = list(PROGRAMS[name].spec)
    spec[0] = (spec[0][0], spec[0][1], (100 * 64 + 3, 64, 1))
    path, _, _, said, _ = lsb._launch(monkeypatch, "user_programs31", name, spec)
    assert path == "simt" and len(said) == 1, said
    assert said[0].startswith(f"{_def_line(name, user_programs31.__file__)}: warning: cuTile kernel {name}: "), said


@needs_cutile
@pytest.mark.parametrize("case", ["fallback", "kvec", "kvec_global", "staged"])
def test_pythons_own_location_is_the_users_call(monkeypatch, case):
    """``warnings``' own location (what ``python -W`` / pytest print before the message) is the user's line that
    called the launcher — here test_launch_strided_batch.py's call of ``tileorch.cutile.launch`` — however
    deep inside tileorch the warning is decided (before: a fixed stacklevel named a launcher line,
    ``launchers/cutile.py:2389``, for the misaligned K vector's warning in the session-42 GPU log)."""
    import test_launch_strided_batch as lsb

    from tileorch.testing.user_programs31 import PROGRAMS as P31

    if case == "fallback":
        name = "gemm_batched_strided_batch_view"
        spec = list(P31[name].spec)
        spec[0] = (spec[0][0], spec[0][1], (100 * 64 + 3, 64, 1))
        lsb._launch(monkeypatch, "user_programs31", name, spec, public=True)
    elif case == "kvec":  # (copied into aligned scratch)
        from test_k_vector_tma import _launch_recording_maps

        _launch_recording_maps(monkeypatch, "kv_gamma_ragged", {1: 2}, times=1, public=True)
    elif case == "kvec_global":  # (rows no one copy gives: the kvec_global=1 kernel)
        from test_k_vector_tma import PROGRAMS as KV
        from test_k_vector_tma import _launch_recording_maps

        spec = list(KV["kv_group_scale"].spec)
        spec[2] = (spec[2][0], spec[2][1], (64, 1))
        _launch_recording_maps(monkeypatch, "kv_group_scale", {2: 4}, spec=spec, times=1, lowered=("kvec_global",),
                               public=True)
    else:
        test_staged_operands_are_at_the_kernels_line(monkeypatch, public=True)
    assert lsb.WARNED_AT and set(lsb.WARNED_AT) == {lsb.__file__}, lsb.WARNED_AT
