//! Reading arbitrary bytes as a `.tflite` model: must return `Ok` or a typed error, never panic,
//! hang or allocate without bound.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = zeropoint::tflite::read(data);
});
