"""The seed's 48-byte CutlassTileSchedulerParams record: offsets, round trip, alignment."""

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tileorch.schedulers import static_persistent_params, streamk_params
from tileorch.schedulers.record import RECORD_BYTES, CutlassTileSchedulerParams, record_for

u32 = st.integers(0, 2**32 - 1)


def test_offsets_match_the_seed():
    rec = CutlassTileSchedulerParams(1, 2, 3, 4, 5, 6, 7, 8, 0x1122334455667788, 9)
    raw = rec.pack()
    assert RECORD_BYTES == len(raw) == 48
    # seed offsets: counts at 0x00..0x1C, workspace_ptr at 0x20, k_split_count at 0x28, reserved 0x2C
    assert [struct.unpack_from("<I", raw, off)[0] for off in range(0, 0x20, 4)] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert struct.unpack_from("<Q", raw, 0x20)[0] == 0x1122334455667788
    assert struct.unpack_from("<I", raw, 0x28)[0] == 9
    assert raw[0x2C:] == b"\0\0\0\0"


@settings(max_examples=50, deadline=None)
@given(st.lists(u32, min_size=8, max_size=8), st.integers(0, 2**61 - 1), u32)
def test_pack_round_trip(counts, ptr_div8, splits):
    rec = CutlassTileSchedulerParams(*counts, ptr_div8 * 8, splits)
    assert CutlassTileSchedulerParams.unpack(rec.pack()) == rec


def test_misaligned_workspace_is_refused():
    with pytest.raises(ValueError):
        CutlassTileSchedulerParams(1, 1, 1, 1, 1, 1, 1, 1, 0x1004 + 2).pack()
    raw = bytearray(CutlassTileSchedulerParams(1, 1, 1, 1, 1, 1, 1, 1, 8).pack())
    raw[0x20] = 9
    with pytest.raises(ValueError):
        CutlassTileSchedulerParams.unpack(bytes(raw))
    with pytest.raises(ValueError):
        CutlassTileSchedulerParams.unpack(bytes(47))


def test_record_from_params():
    # 300x500 with 128x128 tiles -> 3x4 CTA tiles, cluster 1x2 keeps N 4; kt = 1000/64 -> 16
    sk = streamk_params((300, 500, 1000, 1), (128, 128, 64), (1, 2), 132, splits=3)
    assert record_for(sk, 0x1000) == CutlassTileSchedulerParams(3, 4, 16, 1, 2, 1, 2, 132, 0x1000, 3)
    sp = static_persistent_params((300, 500, 1000, 1), (128, 128, 64), (1, 2), 132)
    assert record_for(sp).k_split_count == 0 and record_for(sp).total_ctas == 12
