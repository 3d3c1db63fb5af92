//! Reference vs fast kernels, one criterion group per kernel family, on MobileNet-like shapes.
//!
//! Natively the fast kernels run their **portable lane emulation** (the same packing, blocking
//! and requantization code as the SIMD128 build, with `[i32; 4]`-style lanes that LLVM may or
//! may not auto-vectorise), so these numbers compare algorithms and layouts, not wasm SIMD: the
//! browser numbers come from the wasm build (`scripts/kernel-timing.mjs`, the page's benchmark).
//! Run with `cargo bench -p zeropoint --bench kernels`.

#[cfg(target_arch = "wasm32")]
fn main() {}

#[cfg(not(target_arch = "wasm32"))]
mod native {
    use std::hint::black_box;

    use criterion::{Criterion, criterion_group};
    use zeropoint::fixedpoint::quantize_multiplier;
    use zeropoint::kernels::PackedKernel;
    use zeropoint::kernels::reference::conv::{self, ConvParams};
    use zeropoint::kernels::reference::conv_int::{self, RequantParams};
    use zeropoint::kernels::reference::elementwise::{self, Broadcast, QuantAddSub};
    use zeropoint::kernels::reference::fully_connected::{self, FullyConnectedParams};
    use zeropoint::kernels::reference::pool::{self, PoolParams};
    use zeropoint::kernels::reference::quantize;
    use zeropoint::kernels::reference::{ActivationRange, fully_connected_int};
    use zeropoint::kernels::simd128::conv_float::{Conv2dF32, DepthwiseF32, FullyConnectedF32};
    use zeropoint::kernels::simd128::conv_int::Conv2dInt8;
    use zeropoint::kernels::simd128::depthwise_int::DepthwiseInt8;
    use zeropoint::kernels::simd128::elementwise_int::AddSubInt8;
    use zeropoint::kernels::simd128::fully_connected_int::FullyConnectedInt8;
    use zeropoint::kernels::simd128::pool_int::PoolInt8;
    use zeropoint::kernels::simd128::quantize as fast_quantize;

    const REF: &str = "reference";
    const FAST: &str = "fast (native: portable lanes)";

    fn data(n: usize, seed: u64) -> Vec<i8> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..n).map(|_| rng.i8(..)).collect()
    }

    fn floats(n: usize, seed: u64) -> Vec<f32> {
        let mut rng = fastrand::Rng::with_seed(seed);
        (0..n).map(|_| rng.f32() * 2.0 - 1.0).collect()
    }

    fn geometry(hw: usize, in_c: usize, out_c: usize, k: usize, stride: usize) -> ConvParams {
        let out = hw.div_ceil(stride);
        ConvParams {
            batches: 1,
            in_h: hw,
            in_w: hw,
            in_c,
            out_h: out,
            out_w: out,
            out_c,
            filter_h: k,
            filter_w: k,
            stride_h: stride,
            stride_w: stride,
            dilation_h: 1,
            dilation_w: 1,
            pad_top: (k - 1) / 2,
            pad_left: (k - 1) / 2,
            act: ActivationRange::RELU6,
        }
    }

    fn quant(channels: usize) -> RequantParams {
        let (m, s) = quantize_multiplier(0.0123);
        RequantParams {
            input_offset: 128,
            output_offset: -128,
            act_min: -128,
            act_max: 127,
            multipliers: vec![m; channels],
            shifts: vec![s; channels],
            real_multipliers: vec![0.0123; channels],
            xnnpack: None,
        }
    }

    fn conv_int8(c: &mut Criterion) {
        let mut g = c.benchmark_group("conv2d_int8");
        for (name, p) in [
            ("1x1 24x24 16->96", geometry(24, 16, 96, 1, 1)),
            ("1x1 24x24 96->16", geometry(24, 96, 16, 1, 1)),
            ("3x3s2 96x96 3->16", geometry(96, 3, 16, 3, 2)),
        ] {
            let k = p.filter_h * p.filter_w * p.in_c;
            let input = data(p.in_h * p.in_w * p.in_c, 1);
            let filter = data(p.out_c * k, 2);
            let bias: Vec<i32> = (0..p.out_c as i32).collect();
            let q = quant(p.out_c);
            let mut out = vec![0i8; p.out_h * p.out_w * p.out_c];
            g.bench_function(format!("{REF} {name}"), |b| {
                b.iter(|| {
                    conv_int::conv2d::<i8, i32, i32>(
                        &p,
                        p.in_c,
                        &q,
                        black_box(&input),
                        &filter,
                        Some(&bias),
                        &mut out,
                    )
                })
            });
            if let Some((fast, mut s)) = Conv2dInt8::new(&p, &q, &filter, Some(&bias)) {
                g.bench_function(format!("{FAST} {name}"), |b| {
                    b.iter(|| fast.run(black_box(&input), &mut out, &mut s))
                });
            }
        }
        g.finish();
    }

    fn depthwise_int8(c: &mut Criterion) {
        let mut g = c.benchmark_group("depthwise_int8");
        for (name, p) in [
            ("3x3 48x48x16", geometry(48, 16, 16, 3, 1)),
            ("3x3s2 24x24x96", geometry(24, 96, 96, 3, 2)),
        ] {
            let input = data(p.in_h * p.in_w * p.in_c, 3);
            let filter = data(9 * p.out_c, 4);
            let q = quant(p.out_c);
            let mut out = vec![0i8; p.out_h * p.out_w * p.out_c];
            g.bench_function(format!("{REF} {name}"), |b| {
                b.iter(|| {
                    conv_int::depthwise_conv2d::<i8, i32, i32>(
                        &p,
                        1,
                        &q,
                        black_box(&input),
                        &filter,
                        None,
                        &mut out,
                    )
                })
            });
            if let Some((fast, mut s)) = DepthwiseInt8::new(&p, 1, &q, &filter, None) {
                g.bench_function(format!("{FAST} {name}"), |b| {
                    b.iter(|| fast.run(black_box(&input), &mut out, &mut s))
                });
            }
        }
        g.finish();
    }

    fn fully_connected_int8(c: &mut Criterion) {
        let mut g = c.benchmark_group("fully_connected_int8");
        let (batches, depth, units) = (1, 1024, 256);
        let input = data(batches * depth, 5);
        let weights = data(units * depth, 6);
        let q = quant(units);
        let p = FullyConnectedParams {
            batches,
            accum_depth: depth,
            out_c: units,
            act: ActivationRange::NONE,
        };
        let mut out = vec![0i8; batches * units];
        g.bench_function(format!("{REF} 1024->256"), |b| {
            b.iter(|| {
                fully_connected_int::fully_connected::<i8, i32, i32>(
                    &p,
                    &q,
                    black_box(&input),
                    &weights,
                    None,
                    &mut out,
                )
            })
        });
        if let Some((fast, mut s)) =
            FullyConnectedInt8::new(batches, depth, units, &q, &weights, None)
        {
            g.bench_function(format!("{FAST} 1024->256"), |b| {
                b.iter(|| fast.run(black_box(&input), &mut out, &mut s))
            });
        }
        g.finish();
    }

    fn elementwise_int8(c: &mut Criterion) {
        let mut g = c.benchmark_group("add_int8");
        let n = 24 * 24 * 32;
        let (a, bv) = (data(n, 7), data(n, 8));
        let (m1, s1) = quantize_multiplier(0.4);
        let (m2, s2) = quantize_multiplier(0.5);
        let (mo, so) = quantize_multiplier(0.001);
        let p = QuantAddSub {
            sub: false,
            left_shift: 20,
            input1_offset: 3,
            input1_multiplier: m1,
            input1_shift: s1,
            input2_offset: -7,
            input2_multiplier: m2,
            input2_shift: s2,
            output_offset: 5,
            output_multiplier: mo,
            output_shift: so,
            act_min: -128,
            act_max: 127,
        };
        let shape = Broadcast::new(&[n], &[n]).expect("same shapes");
        let mut out = vec![0i8; n];
        g.bench_function(format!("{REF} 24x24x32"), |b| {
            b.iter(|| elementwise::quantized_add_sub(&p, &shape, black_box(&a), &bv, &mut out))
        });
        if let Some(fast) = AddSubInt8::new(&p) {
            g.bench_function(format!("{FAST} 24x24x32"), |b| {
                b.iter(|| fast.run(black_box(&a), &bv, &mut out))
            });
        }
        g.finish();
    }

    fn pool_int8(c: &mut Criterion) {
        let mut g = c.benchmark_group("pool_int8");
        let p = PoolParams {
            batches: 1,
            in_h: 24,
            in_w: 24,
            channels: 64,
            out_h: 12,
            out_w: 12,
            filter_h: 3,
            filter_w: 3,
            stride_h: 2,
            stride_w: 2,
            pad_top: 0,
            pad_left: 0,
            act: ActivationRange::NONE,
        };
        let input = data(24 * 24 * 64, 9);
        let mut out = vec![0i8; 12 * 12 * 64];
        for max in [false, true] {
            let name = if max { "max 3x3s2" } else { "average 3x3s2" };
            g.bench_function(format!("{REF} {name}"), |b| {
                b.iter(|| {
                    if max {
                        pool::max_pool_int(&p, -128, 127, black_box(&input), &mut out)
                    } else {
                        pool::average_pool_int(&p, -128, 127, black_box(&input), &mut out)
                    }
                })
            });
            if let Some(fast) = PoolInt8::new(&p, max, -128, 127) {
                g.bench_function(format!("{FAST} {name}"), |b| {
                    b.iter(|| fast.run(black_box(&input), &mut out, &mut ()))
                });
            }
        }
        g.finish();
    }

    fn quantize_int8(c: &mut Criterion) {
        let mut g = c.benchmark_group("quantize_int8");
        let n = 96 * 96 * 3;
        let x = floats(n, 10);
        let mut q = vec![0i8; n];
        let mut f = vec![0f32; n];
        g.bench_function(format!("{REF} quantize 96x96x3"), |b| {
            b.iter(|| quantize::affine_quantize(0.0078, -1, black_box(&x), &mut q))
        });
        g.bench_function(format!("{FAST} quantize 96x96x3"), |b| {
            b.iter(|| fast_quantize::affine_quantize_int8(0.0078, -1, black_box(&x), &mut q))
        });
        g.bench_function(format!("{REF} dequantize 96x96x3"), |b| {
            b.iter(|| quantize::dequantize(0.0078, -1, black_box(&q), &mut f))
        });
        g.bench_function(format!("{FAST} dequantize 96x96x3"), |b| {
            b.iter(|| fast_quantize::dequantize_int8(0.0078, -1, black_box(&q), &mut f))
        });
        g.finish();
    }

    fn float_kernels(c: &mut Criterion) {
        let mut g = c.benchmark_group("float");
        let p = geometry(24, 16, 96, 1, 1);
        let input = floats(24 * 24 * 16, 11);
        let filter = floats(96 * 16, 12);
        let mut out = vec![0f32; 24 * 24 * 96];
        g.bench_function(format!("{REF} conv 1x1 24x24 16->96"), |b| {
            b.iter(|| conv::conv2d(&p, 16, black_box(&input), &filter, None, &mut out))
        });
        if let Some((fast, mut s)) = Conv2dF32::new(&p, &filter, None) {
            g.bench_function(format!("{FAST} conv 1x1 24x24 16->96"), |b| {
                b.iter(|| fast.run(black_box(&input), &mut out, &mut s))
            });
        }
        let p = geometry(48, 16, 16, 3, 1);
        let input = floats(48 * 48 * 16, 13);
        let filter = floats(9 * 16, 14);
        let mut out = vec![0f32; 48 * 48 * 16];
        g.bench_function(format!("{REF} depthwise 3x3 48x48x16"), |b| {
            b.iter(|| conv::depthwise_conv2d(&p, 1, black_box(&input), &filter, None, &mut out))
        });
        if let Some(fast) = DepthwiseF32::new(&p, 1, &filter, None) {
            g.bench_function(format!("{FAST} depthwise 3x3 48x48x16"), |b| {
                b.iter(|| fast.run(black_box(&input), &mut out, &mut ()))
            });
        }
        let fc = FullyConnectedParams {
            batches: 1,
            accum_depth: 1024,
            out_c: 256,
            act: ActivationRange::NONE,
        };
        let input = floats(1024, 15);
        let weights = floats(1024 * 256, 16);
        let mut out = vec![0f32; 256];
        g.bench_function(format!("{REF} fully_connected 1024->256"), |b| {
            b.iter(|| {
                fully_connected::fully_connected(&fc, black_box(&input), &weights, None, &mut out)
            })
        });
        if let Some(fast) = FullyConnectedF32::new(&fc, &weights, None) {
            g.bench_function(format!("{FAST} fully_connected 1024->256"), |b| {
                b.iter(|| fast.run(black_box(&input), &mut out, &mut ()))
            });
        }
        g.finish();
    }

    criterion_group!(
        benches,
        conv_int8,
        depthwise_int8,
        fully_connected_int8,
        elementwise_int8,
        pool_int8,
        quantize_int8,
        float_kernels
    );
}

#[cfg(not(target_arch = "wasm32"))]
criterion::criterion_main!(native::benches);
