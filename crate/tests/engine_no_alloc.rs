//! Proof that the engine does not allocate per inference: this test binary installs a counting
//! global allocator (per thread, so the test harness's own threads do not interfere), prepares
//! every model the repository ships — float, fp16-weight, and the integer ones (int8, int8 with
//! float I/O, 16x8, dynamic-range hybrid) — and checks that `invoke` and `invoke_with` make zero
//! heap allocations, reallocations or frees — with the reference kernels, and for the float
//! models also with the `LiteRtOptimized` ones calibration runs.
#![cfg(not(target_arch = "wasm32"))]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use zeropoint::engine::{Interpreter, Limits};
use zeropoint::kernels::KernelSet;
use zeropoint::tflite;

thread_local! {
    static HEAP_CALLS: Cell<usize> = const { Cell::new(0) };
}

fn count() {
    // `try_with`: during thread teardown the slot may be gone; those calls are not ours.
    let _ = HEAP_CALLS.try_with(|c| c.set(c.get() + 1));
}

/// Forwards to the system allocator and counts every call made on the current thread.
struct Counting;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn heap_calls() -> usize {
    HEAP_CALLS.with(Cell::get)
}

#[test]
fn invoke_makes_no_heap_calls() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // The page's example and every float-compute golden model (float, fp16 weights).
    let mut models = vec![root.join("www/assets/example.tflite")];
    let mut cases: Vec<_> = std::fs::read_dir(root.join("tests/golden"))
        .expect("tests/golden")
        .flatten()
        .map(|e| e.path())
        .collect();
    cases.sort();
    for case in cases {
        for variant in ["float", "fp16", "int8", "int8_floatio", "16x8", "dynamic"] {
            let path = case.join(format!("model_{variant}.tflite"));
            if path.exists() {
                models.push(path);
            }
        }
    }
    assert!(models.len() > 100, "golden models missing");
    // Control flow: WHILE / IF run their subgraphs' interpreters (float inputs; the LSTM text
    // classifier's token ids would be out of its vocabulary with the filler below).
    // Resource variables: CALL_ONCE's first run, READ_VARIABLE / ASSIGN_VARIABLE copies.
    // TFLite_Detection_PostProcess (fast and regular NMS, UINT8 inputs; its scratch is sized at
    // prepare) alone and behind the SSD's heads.
    for name in [
        "control_flow",
        "gru_kws",
        "bilstm",
        "variables",
        "streaming_kws",
        "ssd_detector",
        "detpp_fast_multiclass",
        "detpp_regular_many",
        "detpp_uint8",
    ] {
        models.push(root.join("tests/realworld").join(name).join("model.tflite"));
    }
    let runs = models.into_iter().flat_map(|path| {
        let float = path.ends_with("model_float.tflite");
        let sets: &[KernelSet] = if float {
            &[
                KernelSet::Reference,
                zeropoint::quant::calibrate::CALIBRATION_KERNELS,
            ]
        } else {
            &[KernelSet::Reference]
        };
        sets.iter().map(move |&k| (path.clone(), k))
    });
    for (path, kernels) in runs {
        let bytes = std::fs::read(&path).expect("model file");
        let model = tflite::read(&bytes).expect("model reads");
        let mut interp =
            Interpreter::with_options(&model, &Limits::default(), kernels).expect("model prepares");
        for i in 0..interp.inputs().len() {
            let d = interp.inputs()[i].clone();
            if d.dtype == zeropoint::graph::TensorType::FLOAT32 {
                // Positive values: LOG, SQRT and RSQRT goldens give NaN on negative inputs.
                let values: Vec<f32> = (0..d.num_elements())
                    .map(|k| (k % 7) as f32 * 0.25 + 0.25)
                    .collect();
                interp.set_input_f32(i, &values).expect("input fits");
            } else {
                let bytes: Vec<u8> = (0..d.byte_len()).map(|k| (k * 37 % 251) as u8).collect();
                interp.set_input(i, &bytes).expect("input fits");
            }
        }
        let mut observed = 0usize;
        let mut checksum = 0.0f32;
        let mut bytes_seen = 0usize;
        let before = heap_calls();
        interp.invoke().expect("the model runs");
        interp
            .invoke_with(&mut |_, view| {
                observed += 1;
                bytes_seen += view.bytes.len();
                checksum += view
                    .as_f32()
                    .map_or(0.0, |v| v.first().copied().unwrap_or(0.0));
            })
            .expect("the model runs");
        let after = heap_calls();
        assert_eq!(
            after - before,
            0,
            "{} ({kernels:?}): {} heap calls during two invocations",
            path.display(),
            after - before
        );
        // Every input, then every kernel's outputs (several for SPLIT, UNPACK, …; none for
        // ASSIGN_VARIABLE and CALL_ONCE).
        let with_output = interp
            .step_infos()
            .iter()
            .filter(|s| !s.output.is_empty())
            .count();
        assert!(observed >= interp.inputs().len() + with_output);
        assert!(
            checksum.is_finite(),
            "{}: non-finite output",
            path.display()
        );
        assert!(bytes_seen > 0);
        // The counter does see allocations (so a zero above means something).
        let probe = heap_calls();
        let v = std::hint::black_box(vec![1u8; 64]);
        drop(v);
        assert!(heap_calls() > probe);
    }
}
