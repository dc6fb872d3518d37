# Session 25 s25-review on the GPU (one device call, < 60 s; repository root, compiler installed; results under
# $OUT): the two things review 25 changed or found that only a GPU can confirm.
#  1. an odd-width column slice of a wider f32 C (Y[:, :71] of Y [200, 128], and Y[:, 5:76]): the launcher now
#     stages it (a PerformanceWarning naming "inside a pair of columns"); the slice must match torch and every
#     column beside it stay NaN (before the fix the direct epilogue wrote Y[:, 71] in place);
#  2. register A (the default for a computed A, never run on a GPU) on review 25's adversarial relu: M = 40, K = 40
#     (below one tile each), NaN / inf / -0 / a denormal in A; ct.maximum drops the NaN (cuTile's default), so
#     torch's reference is relu(nan_to_num(a, nan=0)); outputs NaN-prefilled; and the same with
#     TILEORCH_COMPUTED_OPERAND=staged, bit for bit equal to the register-A output.
# Expected: "review25 gpu: 4 passed" (pytest's summary line).
S="$OUT/s25_review"; mkdir -p "$S"
cat > "$S/test_review25_gpu.py" <<'PY'
import math, os, sys, warnings
import pytest
torch = pytest.importorskip("torch")
import cuda.tile as ct
import tileorch.cutile
from tileorch.testing.column_view_programs import mm_plain
from tileorch.testing.computed_b_programs import relu_a


def _launch(kernel, grid, args):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        tileorch.cutile.launch(torch.cuda.current_stream(), grid, kernel, tuple(args))
        torch.cuda.synchronize()
    return [str(w.message) for w in caught]


@pytest.mark.parametrize("col0, n", [(0, 71), (5, 71)])
def test_odd_column_slice_of_f32_c(col0, n):
    g = torch.Generator(device="cuda").manual_seed(25 + col0)
    m, k = 200, 136
    x = torch.randn((m, k), device="cuda", generator=g).half()
    w = torch.randn((k, n), device="cuda", generator=g).half()
    y = torch.full((m, 128), float("nan"), device="cuda")
    said = _launch(mm_plain, (2, 2, 1), (x, w, y[:, col0:col0 + n], 128, 64, 64))
    print("warnings:", said)
    ref = x.float() @ w.float()
    got = y[:, col0:col0 + n]
    assert not got.isnan().any() and float((got - ref).norm() / ref.norm()) < 1e-2
    assert y[:, :col0].isnan().all() and y[:, col0 + n:].isnan().all(), "a column beside the slice was written"


def _relu_run(a, b, staged):
    if staged:
        os.environ["TILEORCH_COMPUTED_OPERAND"] = "staged"
    try:
        c = torch.full((a.shape[0], b.shape[1]), float("nan"), device="cuda")
        said = _launch(relu_a, (1, 2, 1), (a, b, c, 64, 64, 64))
        assert not [s for s in said if "SIMT" in s], said
        return c
    finally:
        os.environ.pop("TILEORCH_COMPUTED_OPERAND", None)


def test_register_a_relu_of_special_values_small():
    g = torch.Generator(device="cuda").manual_seed(2525)
    m, k, n = 40, 40, 72
    a = torch.randn((m, k), device="cuda", generator=g).half()
    a[0, 0], a[1, 1], a[2, 2], a[4, 3] = float("nan"), -math.inf, math.inf, 6e-8
    a[3, :] = -0.0
    b = torch.randn((k, n), device="cuda", generator=g).half()
    got = _relu_run(a, b, False)
    ref = torch.relu(torch.nan_to_num(a.double(), nan=0.0, posinf=math.inf, neginf=-math.inf)) @ b.double()
    assert not got.isnan().any()
    fin = ref.isfinite()
    assert torch.equal(got.isinf(), ref.isinf())
    assert torch.allclose(got.double()[fin], ref[fin], atol=2e-3, rtol=1e-2)
    staged = _relu_run(a, b, True)
    assert torch.equal(got.view(torch.int32), staged.view(torch.int32)), "register A and staged A differ"


def test_register_a_relu_ragged_two_k_tiles():
    g = torch.Generator(device="cuda").manual_seed(2526)
    m, k, n = 40, 100, 72
    a = torch.randn((m, k), device="cuda", generator=g).half()
    b = torch.randn((k, n), device="cuda", generator=g).half()
    got = _relu_run(a, b, False)
    ref = torch.relu(a.double()) @ b.double()
    assert not got.isnan().any() and torch.allclose(got.double(), ref, atol=2e-3, rtol=1e-2)
PY
timeout 50 python3 -m pytest -q -s -p no:cacheprovider -rfE "$S/test_review25_gpu.py" > "$S/gpu_tests.log" 2>&1
echo "review25 gpu: rc=$?"; grep -E "warnings:|FAILED|ERROR|passed|failed" "$S/gpu_tests.log" | cut -c1-300 | tail -n 12
