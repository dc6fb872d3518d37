"""Settings with odd values (review 26): every ``TILEORCH_*`` setting given texts a user may type by mistake
(other scripts' digits, signs, spaces, hex, exponents, upper case, a lone comma) is read or refused with
:class:`~tileorch.settings.SettingError` naming it, never another exception; through the CLI that is one
``error:`` line and exit 1.  ``TILEORCH_ATTN_STAGES=²`` raised ``ValueError: invalid literal for int()`` (a
traceback: ``str.isdigit`` takes superscripts)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tileorch import settings

ODD = ["²", "٣", "-1", " 3 ", "3.0", "0x3", "1e1", "+2", "1_0", ",", "ON", " On ", "\t", "0" * 40 + "1", "9" * 30,
       "simt ", "SIMT", "½"]


@pytest.mark.parametrize("text", ODD)
def test_every_setting_reads_or_refuses_an_odd_value(monkeypatch, text):
    for name, setting in settings.SETTINGS.items():
        monkeypatch.setenv(name, text)
        try:
            got = settings.value(name)
            if isinstance(setting.accepts, range) and got is not None:
                assert settings.integer(name) in setting.accepts, (name, text)
        except settings.SettingError as e:
            assert name in str(e), (name, text, str(e))
        monkeypatch.delenv(name)


@pytest.mark.parametrize("text", ["²", "٣"])
def test_digits_of_other_scripts_are_refused(monkeypatch, text):
    monkeypatch.setenv("TILEORCH_ATTN_STAGES", text)
    with pytest.raises(settings.SettingError, match="TILEORCH_ATTN_STAGES"):
        settings.value("TILEORCH_ATTN_STAGES")


def test_the_cli_says_error_for_a_superscript_digit(tmp_path):
    import os

    env = {**os.environ, "TILEORCH_ATTN_STAGES": "²"}
    r = subprocess.run([sys.executable, "-m", "tileorch", "doctor"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert "Traceback" not in r.stderr, r.stderr[-2000:]
    assert "TILEORCH_ATTN_STAGES" in r.stdout + r.stderr
