//! What the `cli_*` tests share: running the `zeropoint` binary as a user does, and the paths it
//! reads (files of the repository) and writes (a scratch folder per test file).
// Each test file is its own crate and uses only some of these.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Runs the `zeropoint` binary with `args`; its exit status, stdout and stderr.
pub fn zeropoint(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_zeropoint"))
        .args(args)
        .output()
        .expect("the zeropoint binary runs")
}

/// Output bytes as text.
pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `rel` (a path inside the repository, like `tests/golden/example_cnn`).
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

/// The file `name` in the scratch folder `dir` (created), under cargo's test scratch space.
pub fn scratch_in(dir: &str, name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir.join(name)
}

/// `p` as a string argument.
pub fn arg(p: impl AsRef<Path>) -> String {
    p.as_ref().to_str().expect("utf-8 path").to_string()
}
pub mod signatures;
