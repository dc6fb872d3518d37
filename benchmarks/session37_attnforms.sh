# Session 37 (issue 20, branch s37-attnforms): attention spellings before / after this session's chained-tier rewrites.
# (1) exp: s36_scale_in_exp (p = exp((s - m) * sm_scale), causal d64 128x64): TILEORCH_ATTN_SOFTMAX_EXP_SCALED=1 (after:
#     ex2.approx of (s - m) * (sm_scale log2 e), 293 SASS per warp and key tile, the textbook's 291) against =0 (before:
#     the full-precision exp, 533), the textbook causal program at 128x64 and Triton's tutorial spelling beside.
# (2) plain: 64x256 key tiles (the plain, not overlapped, loop): TILEORCH_ATTN_PLAIN_MASKS=1 (after: interior tiles
#     without the mask, 976 SASS per warp and tile at d64 / 915 at d80 D128) against =0 (before: 1228 / 1173, and
#     ptxas spilled 4 B at d80), textbook 128x128 (d64) beside (d80 128x64: today's sweep, 306.6 TFLOP/s).
# (3) rescale: s36_d160_cross_bn32 (64x32, D=256: the accumulator rescale is 144 of the tile's 339 SASS per warp) under
#     the existing TILEORCH_ATTN_SKIP_RESCALE=1 against its default 0 (no new code: is the skip worth its default here?).
# What it should show: every row err <= 2e-3 and unwritten 0; scale_in_exp after near the textbook 128x64 causal
# row and well above before (session 37's sweep: 253 TFLOP/s); bn256 after above before (sweep: 284 d64, 155 d80);
# d160 skip against before (sweep: 210, SDPA 562).
# SDPA (same process) on the after and textbook rows.  B=4, H=16, S=4096, fp16, --iters 20.
# Run from any tree with tileorch installed: bash benchmarks/session37_attnforms.sh   (timeouts add up to 195 s; rows print as they finish)
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
OUTDIR="${OUT:-/tmp}/s37attnforms"; mkdir -p "$OUTDIR"
export TILEORCH_CACHE_DIR=${TILEORCH_CACHE_DIR:-/tmp/tileorch-cache-s37af}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$OUTDIR/device.txt"
(cd "$HERE" && git rev-parse --short HEAD 2>/dev/null) | tee "$OUTDIR/commit.txt"
for g in exp plain rescale; do
  case "$g" in exp) t=70;; plain) t=90;; *) t=35;; esac
  timeout "$t" python3 "$HERE/session37_attnforms.py" --group "$g" --iters 20 > "$OUTDIR/$g.jsonl" 2> "$OUTDIR/$g.err"
  echo "[$g] rc=$?"
  python3 - "$OUTDIR/$g.jsonl" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    print(f"{r.get('program', '?'):24s} {r.get('variant', ''):9s} {str(r.get('env', {})):45s} "
          f"tileorch {r.get('tileorch_tflops', '-')} TFLOP/s ({r.get('tileorch_ms', '-')} ms, err {r.get('tileorch_err', '-')}, "
          f"unwritten {r.get('unwritten', '-')})  SDPA {r.get('sdpa_tflops', '-')}  {r.get('error', '')}")
PY
  tail -n 3 "$OUTDIR/$g.err"
done
