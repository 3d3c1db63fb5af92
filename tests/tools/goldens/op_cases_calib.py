"""Calibration-order cases (issue 19, "exact calibration"): float ops whose shape makes TF's
calibrator sum in an order of its own. TF's calibrator runs its interpreter with the default
thread count, and LiteRT then gives Eigen a pool of 4 threads: a CONV_2D with a constant filter
is an Eigen tensor contraction whose summation order depends on how Eigen cuts it for those
threads (k split into 2-4 blocks added at the end, kc <= 320 per gebp call, a column-major GEMV
in chunks of 16 for one output pixel), which a 1-thread LiteRT does not show. Each case's
`calibrated` variant is TF's own calibrator on the case's calibration samples; tests/rust/
calibration.rs checks that our calibration records the same min/max on every tensor.

Shapes (m = out_c, n = output pixels, k = filter taps x input channels), each with the partition
crate/kernels/src/litert_optimized/contraction.rs computes for it:
- calib_conv_k288_s2: the reproducer of the issue, 3x3 stride-2 SAME 17x17x32 -> 9x9x32 with a
  fused RELU: m 32, n 81, k 288, sharded by k into 3 blocks of 96.
- calib_conv_k1152: 3x3 SAME 6x6x128 -> 40 (40 rows: 16-row panels and an 8-row one): 4 blocks
  of 288 added pairwise.
- calib_conv_k576: 3x3 SAME 8x8x64 -> 70: 4 threads by columns, kc 320 (k in two gebp calls).
- calib_conv_gemv: 3x3 SAME on a 1x1x256 input -> 12: one pixel, GEMV in chunks of 16.
- calib_conv1x1_se: 1x1 on 1x1x200 -> 48 (a squeeze-excite projection): GEMV of a plain matrix.
- calib_conv_odd: 3x3 stride-2 VALID 13x11x24 -> 20 with RELU6 (odd sizes).
- calib_dw_mult: DEPTHWISE_CONV_2D 3x3 stride 2 SAME, depth multiplier 3, 11x9x6 (LiteRT's
  depthwise kernel splits rows over threads, never a sum: the order stays the single-thread one).
- calib_fc_k1200: FULLY_CONNECTED over 1200 features (Eigen's GEMV, not threaded).
- calib_conv_caches: 3x3 stride-2 SAME 8x8x64 -> 4x4x32 (m 32, n 16, k 576): how Eigen cuts it
  depends on the CPU's cache sizes (with 48 KiB L1 / 2 MiB L2 and with 32 KiB / 1 MiB the sums
  of 447 of 512 elements differ in the last bits), so its calibrator.toml records the caches
  of the machine it was made on and the test calibrates with them.
- calib_fc_rows_k1200: FULLY_CONNECTED 1200 -> 24 on 5 rows: Eigen's single-threaded general
  product, whose depth is longer than one gebp block (kc 400 with a 32 KiB L1, 608 with 48 KiB),
  so it is summed in kc chunks (one block over all 1200 differed from TF by up to 14 ulps).
- calib_gelu_exact: GELU, exact (erfc) form, on [-7, 7]: the TF wheel's Eigen is built with AVX
  and EIGEN_FAST_MATH, so erfc's 1/x^2 (|x| > 1) is the CPU's rcpps estimate plus a Newton step,
  not LiteRT's division (the zoo's tiny_vit: 89 of 4096 outputs of its first GELU, then 16 of
  its 130 quantized tensors, one ulp off in scale). The estimate is the CPU's own (Intel's and
  AMD's differ), so calibrator.toml names the CPU.
"""

from __future__ import annotations

from .frameworks import keras
from .single_op import In, op_case, random_bias
from .variants import ALL_VARIANTS

L = keras.layers
# Only the float model and TF's calibrated ranges matter here; the other variants are listed
# as not produced, with the reason.
SKIP = {
    v: "not produced: a calibration-order case (only the float model and TF's calibrated ranges matter)"
    for v in ALL_VARIANTS
    if v not in ("float", "calibrated")
}

op_case(
    "calib_conv_k288_s2", "CONV_2D", 9701,
    [In("x", (17, 17, 32), -2.0, 2.0)],
    lambda x: L.Conv2D(32, 3, strides=2, padding="same", activation="relu")(x),
    "CONV_2D 3x3 stride 2 SAME 17x17x32 -> 9x9x32, RELU (k = 288): TF's calibrator sums k in 3 blocks of 96.",
    weights=random_bias(L.Conv2D), skip=SKIP,
)
op_case(
    "calib_conv_k1152", "CONV_2D", 9702,
    [In("x", (6, 6, 128))],
    lambda x: L.Conv2D(40, 3, padding="same")(x),
    "CONV_2D 3x3 SAME 6x6x128 -> 40 (k = 1152): 4 blocks of 288, added (b0 + b1) + (b2 + b3).",
    weights=random_bias(L.Conv2D), skip=SKIP,
)
op_case(
    "calib_conv_k576", "CONV_2D", 9703,
    [In("x", (8, 8, 64))],
    lambda x: L.Conv2D(70, 3, padding="same")(x),
    "CONV_2D 3x3 SAME 8x8x64 -> 70 (k = 576): 4 threads over columns, k in gebp calls of 320 and 256.",
    weights=random_bias(L.Conv2D), skip=SKIP,
)
op_case(
    "calib_conv_gemv", "CONV_2D", 9704,
    [In("x", (1, 1, 256))],
    lambda x: L.Conv2D(12, 3, padding="same")(x),
    "CONV_2D 3x3 SAME on one pixel, 256 channels -> 12 (k = 2304): Eigen's GEMV, chunks of 16.",
    weights=random_bias(L.Conv2D), skip=SKIP,
)
op_case(
    "calib_conv1x1_se", "CONV_2D", 9705,
    [In("x", (1, 1, 200))],
    lambda x: L.Conv2D(48, 1, activation="relu")(x),
    "CONV_2D 1x1 on one pixel, 200 -> 48, RELU (squeeze-excite): Eigen's GEMV, chunks of 16.",
    weights=random_bias(L.Conv2D), skip=SKIP,
)
op_case(
    "calib_conv_odd", "CONV_2D", 9706,
    [In("x", (13, 11, 24), -3.0, 3.0)],
    lambda x: L.Conv2D(20, 3, strides=2, padding="valid", activation="relu6")(x),
    "CONV_2D 3x3 stride 2 VALID 13x11x24 -> 6x5x20, RELU6 (odd sizes, 20 rows).",
    weights=random_bias(L.Conv2D), skip=SKIP,
)
op_case(
    "calib_dw_mult", "DEPTHWISE_CONV_2D", 9707,
    [In("x", (11, 9, 6), -2.0, 2.0)],
    lambda x: L.DepthwiseConv2D(3, strides=2, padding="same", depth_multiplier=3)(x),
    "DEPTHWISE_CONV_2D 3x3 stride 2 SAME, multiplier 3, 11x9x6 -> 6x5x18.",
    weights=random_bias(L.DepthwiseConv2D), skip=SKIP,
)
op_case(
    "calib_fc_k1200", "FULLY_CONNECTED", 9708,
    [In("x", (1200,))],
    lambda x: L.Dense(10)(x),
    "FULLY_CONNECTED 1200 -> 10, one row: Eigen's row-major GEMV.",
    weights=random_bias(L.Dense), skip=SKIP,
)
op_case(
    "calib_conv_caches", "CONV_2D", 9709,
    [In("x", (8, 8, 64))],
    lambda x: L.Conv2D(32, 3, strides=2, padding="same")(x),
    "CONV_2D 3x3 stride 2 SAME 8x8x64 -> 4x4x32 (k = 576): Eigen's blocking, and so the sums, depend on the CPU's cache sizes.",
    weights=random_bias(L.Conv2D), skip=SKIP,
)
op_case(
    "calib_fc_rows_k1200", "FULLY_CONNECTED", 9710,
    [In("x", (5, 1200))],
    lambda x: L.Dense(24)(x),
    "FULLY_CONNECTED 1200 -> 24 on 5 rows: Eigen's general product, k longer than one gebp block (kc from the L1 size).",
    weights=random_bias(L.Dense), skip=SKIP,
)
op_case(
    "calib_gelu_exact", "GELU", 9711,
    [In("x", (32, 64), -7.0, 7.0)],
    lambda x: keras.activations.gelu(x, approximate=False),
    "GELU (exact, erfc) on [-7, 7]: TF's calibrator computes erfc's 1/x^2 with the CPU's rcpps and a Newton step.",
    skip=SKIP,
)
