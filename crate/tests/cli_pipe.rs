//! The `zeropoint` binary writing into a closed pipe (`zeropoint inspect m | head -1`): no panic,
//! no message, exit code 0, and the rest of the work (files written) still done.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::text;

/// Runs the binary with stdout a pipe whose reading end is already closed, so every write to
/// stdout fails with EPIPE (deterministically: nothing can be read before the close).
fn zeropoint_into_closed_pipe(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Command::new(env!("CARGO_BIN_EXE_zeropoint"))
        .args(args)
        .stdout(writer)
        .output()
        .expect("the zeropoint binary runs")
}

fn example() -> PathBuf {
    common::repo("www/assets/example.tflite")
}

#[test]
fn inspect_into_a_closed_pipe_is_quiet() {
    let model = example();
    let model = model.to_str().expect("utf-8 path");
    for args in [&["inspect", model][..], &["inspect", model, "--json"]] {
        let out = zeropoint_into_closed_pipe(args);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{args:?}: {}",
            text(&out.stderr)
        );
        assert_eq!(text(&out.stderr), "", "{args:?}");
    }
}

#[test]
fn calibrate_into_a_closed_pipe_still_writes_its_statistics() {
    let stats = common::scratch_in("cli_pipe", "stats.json");
    let _ = std::fs::remove_file(&stats);
    let out = zeropoint_into_closed_pipe(&[
        "calibrate",
        example().to_str().expect("utf-8 path"),
        "--random",
        "2",
        "--range",
        "-1,1",
        "-o",
        stats.to_str().expect("utf-8 path"),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // Its last line says where the statistics went (a note on the threads may come first).
    assert!(
        text(&out.stderr)
            .lines()
            .last()
            .is_some_and(|l| l.starts_with("wrote ")),
        "{}",
        text(&out.stderr)
    );
    assert!(stats.exists(), "the statistics were written");
}
