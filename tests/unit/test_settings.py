"""The ``TILEORCH_*`` settings table (tileorch/settings.py): every variable tileorch or its tests
name is a setting, a value a setting does not take is an error naming it (never read silently as
the default), a name that is not a setting gets a warning with the closest one, and the switches
that change the emitted code are all in the compile-cache key."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from tool_forkserver import forked

from tileorch import cache, settings

ROOT = Path(__file__).resolve().parents[2]
NAME = re.compile(r"\bTILEORCH_[A-Z0-9_]*[A-Z0-9]\b")


def _names_in(paths) -> dict[str, str]:
    found = {}
    for path in paths:
        for name in NAME.findall(path.read_text(errors="replace")):
            found.setdefault(name, str(path.relative_to(ROOT)))
    return found


def _sources() -> list[Path]:
    """The Python files of the package, tests, benchmarks and tools (less the table and this file,
    which name misspelt settings on purpose)."""
    return [p for d in ("src/tileorch", "tests", "benchmarks", "tools") for p in (ROOT / d).rglob("*.py")
            if "__pycache__" not in p.parts and p.name not in ("settings.py", "test_settings.py")]


def test_every_variable_named_in_code_is_a_setting():
    unknown = {n: where for n, where in _names_in(_sources()).items() if n not in settings.SETTINGS}
    assert not unknown, f"TILEORCH_* names that are not settings (add them to tileorch/settings.py): {unknown}"


def test_every_setting_is_read_somewhere():
    text = "\n".join(p.read_text(errors="replace") for p in _sources())
    short = {name: name[len(settings.PREFIX):] for name in settings.SETTINGS}
    dead = [n for n, s in short.items() if n not in text and f'"{s}"' not in text]
    assert not dead, f"settings no code reads: {dead}"


# The switches the compile-cache key held before the table existed (cache.COMPILE_ENV, session 24):
# a codegen switch dropped from the key would let a run read a program compiled under other switches.
KEY_BEFORE = """ATTN_OVERLAP ATTN_PINGPONG ATTN_PERSISTENT ATTN_EPILOGUE ATTN_PEELED_MASKS ATTN_TREE_REDUCE
ATTN_NEXT_S ATTN_EXP2_FMA ATTN_ROW_DIV ATTN_EARLY_Q ATTN_STAGES ATTN_SKIP_RESCALE ATTN_LATE_RESCALE ATTN_LATE_PACK
ATTN_SCHEDULE WARP_PROGRAMS CLUSTER_SPLIT PREFETCH_UNROLL PROGRAMS_PER_WARP CLUSTER_SPLIT_MAX SIMT_MMA
EPILOGUE_ROUNDS MATH REMATERIALIZE RAGGED_ROWS GATHER_RUNS UNIFORM_DIV GATHER_WARPS SIMT_STORE_CHUNK F32_DOT
PREDICATED_INDEX_LOADS SIMT_VECTOR_BYTES ROW_RUNS COMPUTED_OPERAND SIMT_REDUCE_EXCHANGE ONLINE_SOFTMAX""".split()


def test_codegen_switches_are_in_the_cache_key(monkeypatch):
    assert {settings.PREFIX + n for n in KEY_BEFORE} <= set(cache.COMPILE_ENV)
    for name in cache.COMPILE_ENV:
        monkeypatch.delenv(name, raising=False)
    before = cache.compile_environment()
    s = settings.SETTINGS["TILEORCH_ATTN_STAGES"]
    monkeypatch.setenv(s.name, "2")
    assert cache.compile_environment() != before


def _bad_values(s: settings.Setting) -> list[str]:
    if isinstance(s.accepts, frozenset):
        return ["bogus", f"{min(s.accepts)},bogus", "prefetch+pairs"]
    if isinstance(s.accepts, range):
        bad = ["x", "-1", "1.5", str(s.accepts.stop)]
        return bad + ([str(s.accepts.start - 1)] if s.accepts.start > 0 else [])
    return ["bogus", "2.0"]


CHECKED = [s for s in settings.SETTINGS.values() if s.accepts is not settings.ANY]


@pytest.mark.parametrize("s", CHECKED, ids=[s.name for s in CHECKED])
def test_a_value_the_setting_does_not_take_is_an_error(s, monkeypatch):
    for bad in _bad_values(s):
        monkeypatch.setenv(s.name, bad)
        with pytest.raises(settings.SettingError) as err:
            settings.value(s.name)
        assert s.name in str(err.value) and repr(bad) in str(err.value)


@pytest.mark.parametrize("s", CHECKED, ids=[s.name for s in CHECKED])
def test_accepted_values_and_the_default(s, monkeypatch):
    if isinstance(s.accepts, range):
        good = [str(s.accepts.start), str(s.accepts.stop - 1)]
    elif isinstance(s.accepts, frozenset):
        good = [",".join(sorted(s.accepts)), min(s.accepts)]
    else:  # words, and the ends of a range of counts a tuple may end with
        good = [x for a in s.accepts for x in ([str(a.start), str(a.stop - 1)] if isinstance(a, range) else [a])]
    for text in good:
        monkeypatch.setenv(s.name, f" {text.upper()} ")
        assert settings.value(s.name) == text
    monkeypatch.setenv(s.name, "")
    assert settings.value(s.name) == s.default
    monkeypatch.delenv(s.name)
    assert settings.value(s.name) == s.default


def test_a_setting_of_words_or_a_count_refuses_other_text(monkeypatch):
    """``TILEORCH_EPILOGUE_DOT_COARSEN`` takes ``auto``, ``off`` or a count of at least 1: 0, a negative count and
    other words are refused with what it takes."""
    for bad in ("0", "-2", "on", "2.5"):
        monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_COARSEN", bad)
        with pytest.raises(settings.SettingError, match=r"one of 'auto', 'off' or an integer >= 1"):
            settings.value("TILEORCH_EPILOGUE_DOT_COARSEN")
    monkeypatch.setenv("TILEORCH_EPILOGUE_DOT_COARSEN", " 12 ")
    assert settings.value("TILEORCH_EPILOGUE_DOT_COARSEN") == "12"


def test_readers_take_the_validated_value(monkeypatch):
    from tileorch.transforms.tileaa_to_simt import gather_occupancy, store_chunks
    from tileorch.transforms.tileas import chained_dots, simt_layouts

    monkeypatch.setenv("TILEORCH_ATTN_STAGES", "2")
    assert chained_dots.stages_cap() == 2
    monkeypatch.delenv("TILEORCH_ATTN_STAGES")
    assert chained_dots.stages_cap() == chained_dots.MAX_STAGES
    monkeypatch.setenv("TILEORCH_GATHER_WARPS", "0")
    assert gather_occupancy.target_warps() == 0
    monkeypatch.delenv("TILEORCH_GATHER_WARPS")
    assert gather_occupancy.target_warps() == gather_occupancy.DEFAULT_WARPS
    monkeypatch.setenv("TILEORCH_SIMT_STORE_CHUNK", "3")
    assert store_chunks.chunk_loads() == 3
    monkeypatch.setenv("TILEORCH_ROW_RUNS", "5")
    assert simt_layouts.row_runs() == 5
    monkeypatch.setenv("TILEORCH_ATTN_STAGES", "8")  # used to be clamped to 4 silently
    with pytest.raises(settings.SettingError, match="TILEORCH_ATTN_STAGES='8'"):
        chained_dots.stages_cap()


def test_check_environment_warns_once_per_unknown_name(monkeypatch):
    monkeypatch.setattr(settings, "_checked", set())  # (the process's memo: the test may run twice in one process)
    monkeypatch.setattr(settings, "_warned", set())
    env = {"TILEORCH_ATTN_STAGE": "2", "TILEORCH_MATH": "approx", "PATH": "/bin"}
    first = settings.check_environment(env)
    assert first == ["TILEORCH_ATTN_STAGE is not a setting tileorch reads: ignored "
                     "(did you mean TILEORCH_ATTN_STAGES?)"]
    assert settings.check_environment(dict(env, TILEORCH_MATH="full")) == []
    with pytest.raises(settings.SettingError, match="TILEORCH_MATH='exact'"):
        settings.check_environment({"TILEORCH_MATH": "exact"})


def test_compile_environment_validates_and_warns(monkeypatch):
    monkeypatch.setattr(settings, "_warned", set())
    monkeypatch.setattr(cache, "_validated", set())
    monkeypatch.setenv("TILEORCH_SIMT_VECTOR_BYTES", "12")
    with pytest.raises(settings.SettingError, match="TILEORCH_SIMT_VECTOR_BYTES='12'"):
        cache.compile_environment()
    monkeypatch.setenv("TILEORCH_SIMT_VECTOR_BYTES", "8")
    monkeypatch.setenv("TILEORCH_SIMT_VECTOR_BYTE", "8")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert "TILEORCH_SIMT_VECTOR_BYTES=8;" in cache.compile_environment()
    assert [str(w.message) for w in seen if w.category is settings.SettingWarning] == [
        "TILEORCH_SIMT_VECTOR_BYTE is not a setting tileorch reads: ignored (did you mean TILEORCH_SIMT_VECTOR_BYTES?)"]


def _cli(args: list[str], **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(forked([sys.executable, "-m", "tileorch.cli.main", *args]), cwd=ROOT,
                          env={**os.environ, **env}, capture_output=True, text=True, timeout=120)


def test_cli_reports_a_bad_value_as_an_error(tmp_path):
    out = tmp_path / "x.ptx"
    proc = _cli(["compile", "examples/ws_stream_copy.mlir", "-o", str(out)], TILEORCH_ONLINE_SOFTMAX="on")
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr.strip() == ("tileorch compile: error: TILEORCH_ONLINE_SOFTMAX='on': expected an integer >= 0 "
                                   "(the per-element online softmax from N iterations; 0: off)")
    assert not out.exists()


def test_cli_warns_about_a_name_that_is_not_a_setting(tmp_path):
    out = tmp_path / "x.ptx"
    proc = _cli(["compile", "examples/ws_stream_copy.mlir", "-o", str(out)], TILEORCH_ATTN_PINGPONGG="1")
    assert proc.returncode == 0, proc.stderr
    assert ("tileorch compile: warning: TILEORCH_ATTN_PINGPONGG is not a setting tileorch reads: ignored "
            "(did you mean TILEORCH_ATTN_PINGPONG?)") in proc.stderr
    assert out.exists()


def test_doctor_lists_the_settings_set(monkeypatch):
    from tileorch.cli.doctor import _settings

    monkeypatch.setenv("TILEORCH_MATH", "approx")
    monkeypatch.setenv("TILEORCH_ATTN_STAGES", "9")
    monkeypatch.setenv("TILEORCH_NOT_A_SETTING", "1")
    fact = _settings()
    assert not fact.ok
    assert "TILEORCH_ATTN_STAGES=9 (invalid: an integer 1..4)" in fact.value
    assert "TILEORCH_MATH=approx (changes the generated code)" in fact.value
    assert "TILEORCH_NOT_A_SETTING=1 (not a setting: ignored)" in fact.value
