//! Read → write → read: whatever reads must write, and the rewritten file must read back to the
//! same IR (the lossless round trip the format layer promises). "Same" is checked as equal
//! `Debug` text and byte-identical re-serialisation, not `==`: NaN in a float field (a
//! quantization min, an option) is carried over exactly but is never `==` to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(model) = zeropoint::tflite::read(data) else {
        return;
    };
    let bytes = match zeropoint::tflite::write(&model) {
        Ok(b) => b,
        // Only size limits may stop a model that read successfully from being written.
        Err(zeropoint::Error::TooLarge { .. } | zeropoint::Error::Write { .. }) => return,
        Err(e) => panic!("a model that reads must write: {e}"),
    };
    let again = zeropoint::tflite::read(&bytes).expect("a written model reads back");
    assert_eq!(
        format!("{again:?}"),
        format!("{model:?}"),
        "rewrite changed the model"
    );
    let twice = zeropoint::tflite::write(&again).expect("a rewritten model writes");
    assert!(twice == bytes, "writing is not deterministic");
});
