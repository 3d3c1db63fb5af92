//! The `zeropoint` binary as a user runs it: exit codes, stdout, and error messages.
#![cfg(not(target_arch = "wasm32"))]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn zeropoint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zeropoint"))
        .args(args)
        .output()
        .expect("the zeropoint binary runs")
}

fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../www/assets/example.tflite")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli");
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

#[test]
fn inspect_prints_operators_and_io() {
    let out = zeropoint(&["inspect", example().to_str().expect("utf-8 path")]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    for needle in [
        "CONV_2D",
        "DEPTHWISE_CONV_2D",
        "SOFTMAX",
        "input",
        "[1, 32, 32, 3]",
        "FLOAT32",
    ] {
        assert!(s.contains(needle), "missing {needle} in:\n{s}");
    }
}

#[test]
fn rewrite_then_inspect_json_is_identical() {
    let src = example();
    let out_path = scratch("rewritten.tflite");
    let out = zeropoint(&[
        "rewrite",
        src.to_str().expect("utf-8 path"),
        "-o",
        out_path.to_str().expect("utf-8 path"),
        "--external-buffers",
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let a = zeropoint(&["inspect", "--json", src.to_str().expect("utf-8 path")]);
    let b = zeropoint(&["inspect", "--json", out_path.to_str().expect("utf-8 path")]);
    assert!(a.status.success() && b.status.success());
    assert!(text(&a.stdout).contains("\"operator_counts\""));
    assert_eq!(text(&a.stdout), text(&b.stdout));
}

#[test]
fn malformed_files_fail_with_one_clear_line() {
    let bytes = std::fs::read(example()).expect("example");
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "truncated.tflite",
            bytes[..bytes.len() / 3].to_vec(),
            "not a valid .tflite model",
        ),
        (
            "random.tflite",
            (0..5000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                .collect(),
            "not a valid .tflite model",
        ),
        ("empty.tflite", Vec::new(), "too short"),
    ];
    for (name, data, needle) in cases {
        let p = scratch(name);
        std::fs::write(&p, data).expect("write");
        let out = zeropoint(&["inspect", p.to_str().expect("utf-8 path")]);
        assert_eq!(out.status.code(), Some(1), "{name}");
        let err = text(&out.stderr);
        assert!(
            err.starts_with("error: ") && err.contains(needle),
            "{name}: {err}"
        );
        assert!(
            err.contains(name),
            "{name}: message should name the file: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
    }
    let missing = zeropoint(&["inspect", "no/such/model.tflite"]);
    assert_eq!(missing.status.code(), Some(1));
    assert!(text(&missing.stderr).contains("no/such/model.tflite"));
}
