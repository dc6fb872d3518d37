"""The seventeenth user sweep's invalid half (``tileorch.testing.user_programs17.INVALID``): cuTile
programs a user gets wrong that cuTile's own front end accepts (a tile too large for shared memory
in a transpose, a 1-D tile stored into a 2-D array, a system-scope atomic, one tile for a whole
16M-element array).  Compiled by the driver and by ``tileorch compile`` on the exported
``.tileirbc``: each stops with ``file:line:col: error:`` at the line of the user's source that the
entry's ``notes`` quote, the message says why, the command exits non-zero, and nothing reads as a
traceback or an internal error."""

from __future__ import annotations

import pytest

pytest.importorskip("xdsl")
pytest.importorskip("cuda.tile")

from tileorch.testing import user_programs17  # noqa: E402
from tileorch.testing.user_programs17 import INVALID  # noqa: E402
from invalid_sweep_checks import invalid_sweep_tests  # noqa: E402

SOURCE = user_programs17.__file__

test_the_driver_stops_at_the_users_line, test_tileorch_compile_exits_non_zero_with_the_located_error = \
    invalid_sweep_tests(INVALID, SOURCE, ["transpose_256x256_f32_tile", "store_1d_tile_into_2d_array"])
