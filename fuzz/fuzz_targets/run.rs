//! Read → prepare (with small size limits) → run one inference on inputs taken from the same
//! bytes: prepare returns a typed error or an interpreter whose `invoke` never panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use zeropoint::engine::{Interpreter, Limits};

/// Small limits keep every accepted model cheap to run (libFuzzer's RSS limit is 2 GiB).
const LIMITS: Limits = Limits {
    max_tensor_bytes: 1 << 20,
    max_arena_bytes: 8 << 20,
    max_constant_bytes: 8 << 20,
    max_while_iterations: 10_000,
};

fuzz_target!(|data: &[u8]| {
    let Ok(model) = zeropoint::tflite::read(data) else {
        return;
    };
    let Ok(mut interp) = Interpreter::with_limits(&model, &LIMITS) else {
        return;
    };
    // Bound the work per input: element-wise loops over at most the arena, but nested loops
    // (convolutions) multiply sizes; skip models whose kernels could take seconds.
    if interp.num_kernels() > 256 {
        return;
    }
    for i in 0..interp.inputs().len() {
        let n = interp.inputs()[i].byte_len();
        let bytes: Vec<u8> = data.iter().copied().cycle().take(n).collect();
        let bytes = if bytes.len() == n { bytes } else { vec![0; n] };
        interp.set_input(i, &bytes).expect("sized to the input");
    }
    // A WHILE over its iteration limit is a clean error.
    let _ = interp.invoke();
});
