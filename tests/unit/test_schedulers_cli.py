"""``tileorch schedule``: JSON contract, summary, plot, and errors without tracebacks."""

import json

import pytest

from tileorch.cli.main import main


def run(capsys, *argv):
    with pytest.raises(SystemExit) as exc:
        main(["schedule", *argv])
    out = capsys.readouterr()
    return exc.value.code, out.out, out.err


def test_json_keys_and_worked_example(capsys):
    # 8x20 tiles of 128x128, kt 32, 132 SMs: see test_schedulers_streamk.test_streamk_8x20_tiles_kt32
    code, out, _ = run(capsys, "--problem", "1024", "2560", "2048", "--tile", "128x128x64", "--sms", "132", "--json")
    assert code == 0
    doc = json.loads(out)
    assert list(doc) == ["params", "workspace_bytes", "grid", "ctas"]
    assert list(doc["params"]) == ["units_per_problem", "log_swizzle", "raster_along_n", "splits", "big_units",
                                   "big_groups", "sk_tiles", "sk_units", "k_tiles_per_sk_unit",
                                   "k_tiles_per_sk_big_unit", "sk_groups", "separate_reduction_units",
                                   "k_tiles_per_output_tile"]
    assert doc["params"]["sk_groups"] == 4 and doc["params"]["raster_along_n"] is False
    assert doc["grid"] == [132, 1, 1] and len(doc["ctas"]) == 132
    assert doc["ctas"][4] == [[0, 1, 0, 0, 14, 46, 0], [4, 0, 0, 0, 32, 32, 0]]
    # 160 SK tiles * 128*128*4 B = 10485760; 160 locks * 4 B = 640 -> 640 (already 128-aligned)
    assert doc["workspace_bytes"] == 10485760 + 640


def test_launch_order_is_y_outer_x_inner(capsys):
    # along N with cluster 2x1: grid (2, 66); CTA list index = by*2 + bx, so CTAs 0 and 1 are the
    # two CTAs of cluster 0 (m 0 and 1 of the same n)
    code, out, _ = run(capsys, "--problem", "512", "512", "128", "--cluster", "2x1", "--json")
    doc = json.loads(out)
    assert doc["grid"] == [2, 66, 1]
    assert [c[0][:2] for c in doc["ctas"][:4]] == [[0, 0], [1, 0], [0, 1], [1, 1]]


def test_summary_and_plot(capsys, tmp_path):
    png = tmp_path / "s.png"
    code, out, _ = run(capsys, "--problem", "3456", "3456", "8192", "--decomposition", "stream_k",
                       "--plot", str(png))
    assert code == 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "stream-K: 201 tiles over 132 units in 3 groups" in out
    assert "workspace 13173632 bytes" in out  # 201*65536 + 896
    # DP: busiest CTA 6 tiles * 128 = 768 K-iters, useful 729*128 -> 93312 / (132*768) = 0.9205
    code, out, _ = run(capsys, "--problem", "3456", "3456", "8192", "--decomposition", "data_parallel")
    assert "balance 0.9205" in out


@pytest.mark.parametrize("argv,needle", [
    (["--problem", "1", "2"], "three or four"),
    (["--problem", "64", "64", "64", "--splits", "2", "--decomposition", "stream_k"], "can_implement"),
    (["--problem", "64", "64", "64", "--cluster", "3x1"], "power of two"),
    (["--problem", "64", "64", "64", "--sms", "1", "--cluster", "2x2"], "cluster"),
])
def test_errors_are_one_line(capsys, argv, needle):
    code, out, err = run(capsys, *argv)
    assert code == 2 and needle in err and "Traceback" not in err


def test_bad_tile_is_an_argparse_error(capsys):
    code, _out, err = run(capsys, "--problem", "8", "8", "8", "--tile", "128x128")
    assert code == 2 and "--tile must be 3 positive integers" in err
