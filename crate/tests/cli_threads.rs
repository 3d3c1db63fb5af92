//! `--threads N`: calibrating on N threads, each on a slice of the samples, writes the same
//! statistics and the same quantized model bytes for every N (a golden model calibrated from
//! its .npy, a zoo model from seeded random data, and a stateful RNN that falls back to one
//! thread); and `--tf-caches`, the other calibration engine option: whose CPU's TF sums the
//! calibration reproduces.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use common::{text, zeropoint};

fn repo(file: &str) -> String {
    common::arg(common::repo("tests").join(file))
}

fn scratch(name: &str) -> String {
    common::arg(common::scratch_in("cli_threads", name))
}

fn run_ok(args: &[&str]) -> String {
    let out = zeropoint(args);
    assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
    text(&out.stderr)
}

fn read(path: &str) -> Vec<u8> {
    std::fs::read(path).expect("written")
}

#[test]
fn golden_model_quantized_from_npy_is_the_same_on_1_to_4_threads() {
    let model = repo("golden/mobilenet_v2/model_float.tflite");
    let data = repo("golden/mobilenet_v2/calib.npy");
    let mut first: Option<Vec<u8>> = None;
    for n in ["1", "2", "3", "4"] {
        let out = scratch(&format!("mnv2_t{n}.tflite"));
        run_ok(&[
            "quantize",
            &model,
            "--data",
            &data,
            "--threads",
            n,
            "-o",
            &out,
        ]);
        let bytes = read(&out);
        match &first {
            None => first = Some(bytes),
            Some(b) => assert!(*b == bytes, "--threads {n} wrote other bytes"),
        }
    }
}

#[test]
fn zoo_model_statistics_and_model_are_the_same_on_1_to_4_threads() {
    let model = repo("zoo/unet/model_float.tflite");
    let mut first: Option<(Vec<u8>, Vec<u8>)> = None;
    for n in ["1", "2", "3", "4"] {
        let stats = scratch(&format!("unet_t{n}.json"));
        let out = scratch(&format!("unet_t{n}.tflite"));
        // 13 samples: slices of unequal lengths.
        let log = run_ok(&[
            "calibrate",
            &model,
            "--random",
            "13",
            "--range",
            "-1,1",
            "--seed",
            "5",
            "--method",
            "percentile:99.9",
            "--threads",
            n,
            "-o",
            &stats,
        ]);
        assert_eq!(
            log.contains(&format!("calibrating on {n} threads")),
            n != "1",
            "{log}"
        );
        run_ok(&["quantize", &model, "--stats", &stats, "-o", &out]);
        let got = (read(&stats), read(&out));
        match &first {
            None => first = Some(got),
            Some(want) => {
                assert!(want.0 == got.0, "--threads {n}: other statistics");
                assert!(want.1 == got.1, "--threads {n}: other model bytes");
            }
        }
    }
}

#[test]
fn a_stateful_model_calibrates_on_one_thread() {
    // The RNN's hidden state carries over from one sample to the next.
    let model = repo("golden/op_rnn_tanh/model_float.tflite");
    let data = repo("golden/op_rnn_tanh/calib.npy");
    let (one, four) = (scratch("rnn_t1.json"), scratch("rnn_t4.json"));
    run_ok(&[
        "calibrate",
        &model,
        "--data",
        &data,
        "--threads",
        "1",
        "-o",
        &one,
    ]);
    let log = run_ok(&[
        "calibrate",
        &model,
        "--data",
        &data,
        "--threads",
        "4",
        "-o",
        &four,
    ]);
    assert!(
        log.contains("calibrating on one thread: UNIDIRECTIONAL_SEQUENCE_RNN"),
        "{log}"
    );
    assert!(read(&one) == read(&four));
}

#[test]
fn zero_threads_is_refused() {
    let out = zeropoint(&[
        "calibrate",
        &repo("golden/mobilenet_v2/model_float.tflite"),
        "--random",
        "2",
        "--range",
        "0,1",
        "--threads",
        "0",
        "-o",
        &scratch("never.json"),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--threads must be at least 1"), "{err}");
}

/// `min`, `max` of tensor `t` in a `zeropoint calibrate` statistics file.
fn stats_range(path: &str, t: usize) -> (f32, f32) {
    let v: serde_json::Value = serde_json::from_slice(&read(path)).expect("JSON");
    let t = v["tensors"]
        .as_array()
        .expect("tensors")
        .iter()
        .find(|x| x["index"].as_u64() == Some(t as u64))
        .expect("the tensor has statistics");
    let f = |k: &str| t[k].as_f64().expect("a number") as f32;
    (f("min"), f("max"))
}

/// TF 2.21 recorded `calib_conv_caches` (a 3×3 stride-2 CONV_2D with k = 576, whose sums Eigen
/// cuts by the CPU's cache sizes) on a CPU with 32 KiB L1d, 1 MiB L2 and 320 MiB L3: with those
/// caches the output's min/max are the ones TF's calibrator stored in `model_calibrated.tflite`,
/// with the golden machine's they are not; the default is the host's (`zeropoint tf-caches`),
/// and sizes that are not three KiB counts are refused.
#[test]
fn tf_caches_choose_whose_calibration_is_reproduced() {
    let model = repo("golden/calib_conv_caches/model_float.tflite");
    let data = repo("golden/calib_conv_caches/calib.npy");
    let calibrated = std::fs::read(repo("golden/calib_conv_caches/model_calibrated.tflite"))
        .expect("TF's calibrated model");
    let calibrated = zeropoint::tflite::read(&calibrated).expect("reads");
    let output = usize::try_from(calibrated.subgraphs[0].outputs[0]).expect("an index");
    let q = calibrated.subgraphs[0].tensors[output]
        .quantization
        .as_ref()
        .expect("TF's recorded range");
    let tf = (
        q.min.as_ref().expect("min")[0],
        q.max.as_ref().expect("max")[0],
    );
    let range = |caches: &str| {
        let stats = scratch(&format!("caches_{}.json", caches.replace(',', "_")));
        run_ok(&[
            "calibrate",
            &model,
            "--data",
            &data,
            "--tf-caches",
            caches,
            "-o",
            &stats,
        ]);
        stats_range(&stats, output)
    };
    assert_eq!(range("32,1024,327680"), tf, "the recording CPU's caches");
    assert_ne!(range("golden"), tf, "the golden machine's caches");
    // The default is this machine's caches as `zeropoint tf-caches` prints them (the golden
    // machine's where there is no x86 cpuid).
    let printed = zeropoint(&["tf-caches"]);
    let host = if printed.status.success() {
        text(&printed.stdout).trim().to_string()
    } else {
        "golden".to_string()
    };
    let stats = scratch("caches_default.json");
    run_ok(&["calibrate", &model, "--data", &data, "-o", &stats]);
    assert_eq!(
        stats_range(&stats, output),
        range(&host),
        "default = {host}"
    );
    let out = zeropoint(&[
        "calibrate",
        &model,
        "--data",
        &data,
        "--tf-caches",
        "48,2048",
        "-o",
        &scratch("bad.json"),
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("not three cache sizes in KiB"),
        "{}",
        text(&out.stderr)
    );
}
