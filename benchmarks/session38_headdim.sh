# Session 38 (issue 20, branch s38-headdim): attention at head dims 80 / 96 in 128-wide tiles (s36_plain, s36_causal),
# the dots at the head dim (TILEORCH_ATTN_HEAD_DIM_WIDTH=1, after: the launcher compiles the program for the launch's
# head dims; WGMMA N = 80 / 96 for P V, K = 5 / 6 steps of 16 for Q K^T, Q/K/V boxes of 16 / 32 columns) against the
# tile's 128 columns (=0, before), same process, SDPA beside; d80 4k also =32 (96 columns, 64-byte swizzle).  B=4, H=16, fp16, seq 1k / 4k, tiles 128x128 and
# 64x256 (+ causal d80 128x128 at 4k).  Today (H100, session 37): s36_d80_bn256 155.4 TFLOP/s, SDPA 433.2.
# What it should show: every row unwritten 0, err <= 2e-3 (head 0 vs torch fp32), err_sdpa <= 4e-3; after > before.
# Run from the repo root with the compiler installed: bash benchmarks/session38_headdim.sh   (< 150 s)
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUTDIR="${OUT:-/tmp}/s38headdim"; mkdir -p "$OUTDIR"
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s38hd}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUTDIR/device.txt" | sed 's/^/[s38 headdim] device /'
timeout 140 python3 "$HERE/session38_headdim.py" --iters 20 > "$OUTDIR/rows.jsonl" 2> "$OUTDIR/err.txt"
echo "[s38 headdim] rc=$?"
python3 - "$OUTDIR/rows.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    print(f"[s38 headdim] {r.get('case', '?'):22s} {r.get('variant', ''):6s} widths {r.get('widths', '-')} "
          f"{r.get('tflops', '-')} TFLOP/s ({r.get('ms', '-')} ms) SDPA {r.get('sdpa_tflops', '-')}  err {r.get('err', '-')} "
          f"err_sdpa {r.get('err_sdpa', '-')} unwritten {r.get('unwritten', '-')} first {r.get('first_launch_s', '-')} s "
          f"ptxas {r.get('ptxas', '-')} {r.get('error', '')}")
PY
tail -n 5 "$OUTDIR/err.txt" | sed 's/^/[s38 headdim] stderr /'
(cd "$OUTDIR" && tar czf "$OUTDIR/../s38headdim.tgz" rows.jsonl err.txt device.txt && mv "$OUTDIR/../s38headdim.tgz" "$OUTDIR/")
rm -f "$OUTDIR/rows.jsonl" "$OUTDIR/err.txt" "$OUTDIR/device.txt"
