//! Quantize with random statistics: a model read from the input's bytes, and ranges for every
//! float tensor drawn from a seed in the input's last 8 bytes (extreme, tiny, equal, inverted
//! and NaN ranges included). `Ranges::insert` or `quantize` return a typed error or a model
//! that writes, reads back and prepares (small limits) and runs, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zeropoint::engine::{Interpreter, Limits};
use zeropoint::graph::TensorType;
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};

const LIMITS: Limits = Limits {
    max_tensor_bytes: 1 << 20,
    max_arena_bytes: 8 << 20,
    max_constant_bytes: 8 << 20,
    max_while_iterations: 10_000,
};

/// xorshift64*: a tiny deterministic generator driven by the input.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn value(&mut self) -> f32 {
        match self.next() % 10 {
            0 => 0.0,
            1 => f32::MIN_POSITIVE,
            2 => -1e30,
            3 => 1e30,
            4 => f32::from_bits(self.next() as u32), // any bits, NaN and ±inf included
            5 => 1e-30,
            _ => ((self.next() % 20_001) as f32 - 10_000.0) / 997.0,
        }
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 8 {
        return;
    }
    let (model_bytes, seed) = data.split_at(data.len() - 8);
    let mut rng = Rng(u64::from_le_bytes(seed.try_into().expect("8 bytes")) | 1);
    let Ok(model) = zeropoint::tflite::read(model_bytes) else {
        return;
    };
    let Some(sg) = model.subgraphs.first() else {
        return;
    };
    let mut ranges = Ranges::new();
    for (i, t) in sg.tensors.iter().enumerate() {
        if t.dtype != TensorType::FLOAT32 || rng.next() % 16 == 0 {
            continue; // some tensors without a range
        }
        let (a, b) = (rng.value(), rng.value());
        let (lo, hi) = if rng.next() % 8 == 0 { (a, b) } else { (a.min(b), a.max(b)) };
        let _ = ranges.insert(i, &t.name, lo, hi); // bad ranges are typed errors
    }
    let mode = [Mode::Int8, Mode::Int16x8, Mode::Dynamic, Mode::Float16][(rng.next() % 4) as usize];
    let io = [IoType::Native, IoType::Uint8, IoType::Float][(rng.next() % 3) as usize];
    let opts = QuantizeOptions {
        mode,
        io,
        per_tensor: rng.next() % 2 == 0,
        float_ops: if rng.next() % 4 == 0 { vec!["0".into()] } else { Vec::new() },
        int16_ops: if rng.next() % 4 == 0 { vec!["1".into()] } else { Vec::new() },
    };
    let Ok((q, _report)) = quantize(&model, &ranges, &opts) else {
        return;
    };
    let bytes = zeropoint::tflite::write(&q).expect("a quantized model always serialises");
    let back = zeropoint::tflite::read(&bytes).expect("and reads back");
    if let Ok(mut interp) = Interpreter::with_limits(&back, &LIMITS) {
        if interp.num_kernels() <= 256 {
            let _ = interp.invoke();
        }
    }
});
