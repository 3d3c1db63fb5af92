//! What the `cli_signatures*` tests share: tests/realworld/signatures (encode / decode / score,
//! one subgraph each) as a user feeds it to the CLI, per-signature data and runs by signature.

use std::path::{Path, PathBuf};
use std::process::Output;

/// `file` of tests/realworld/signatures, as a CLI argument.
pub fn case(file: &str) -> String {
    super::arg(super::repo("tests/realworld/signatures").join(file))
}

/// `name` in this test file's scratch folder, as a CLI argument.
pub fn scratch(name: &str) -> String {
    super::arg(super::scratch_in(env!("CARGO_CRATE_NAME"), name))
}

/// The shape and raw bytes of the .npy file at `path`.
pub fn npy_data(path: &Path) -> (Vec<usize>, Vec<u8>) {
    let f = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let a = zeropoint::npy::read(&path.display().to_string(), f).expect("npy reads");
    (a.shape, a.data)
}

/// Each signature's calibration inputs, in the signature's input order.
pub const INPUTS: [(&str, &str); 4] = [
    ("decode", "code"),
    ("encode", "features"),
    ("score", "candidate"),
    ("score", "query"),
];

/// `--signature-data KEY=sig_KEY_calib_NAME.npy` for each of `inputs`.
pub fn signature_data(inputs: &[(&str, &str)]) -> Vec<String> {
    inputs
        .iter()
        .map(|(key, name)| format!("{key}={}", case(&format!("sig_{key}_calib_{name}.npy"))))
        .collect()
}

/// `zeropoint <args…> --signature-data …` for each of `data`.
pub fn with_data(args: &[&str], data: &[String]) -> Output {
    let mut all: Vec<&str> = args.to_vec();
    for d in data {
        all.extend(["--signature-data", d.as_str()]);
    }
    super::zeropoint(&all)
}

/// The outputs of signature `key` of the model at `m` on `sig_KEY_in_*.npy` (one sample), as
/// `run --signature` writes them.
pub fn run_signature(m: &str, key: &str, tag: &str) -> Vec<(Vec<usize>, Vec<u8>)> {
    run_signature_on(m, key, key, tag)
}

/// [`run_signature`] on the inputs of signature `inputs_of` of tests/realworld/signatures.
pub fn run_signature_on(
    m: &str,
    key: &str,
    inputs_of: &str,
    tag: &str,
) -> Vec<(Vec<usize>, Vec<u8>)> {
    let mut files = Vec::new();
    for (_, name) in INPUTS.iter().filter(|(k, _)| *k == inputs_of) {
        let (shape, values) = npy_data(Path::new(&case(&format!("sig_{inputs_of}_in_{name}.npy"))));
        let path = scratch(&format!("{tag}_{key}_{name}.npy"));
        let mut with_samples = vec![1];
        with_samples.extend(shape);
        let f = std::fs::File::create(&path).expect("create");
        zeropoint::npy::write(f, zeropoint::npy::Dtype::F32, &with_samples, &values).expect("npy");
        files.push(path);
    }
    let dir = PathBuf::from(scratch(&format!("{tag}_{key}_out")));
    let mut args = vec!["run", m, "--signature", key];
    for p in &files {
        args.extend(["--input", p.as_str()]);
    }
    args.extend(["--out-dir", dir.to_str().expect("utf-8")]);
    let out = super::zeropoint(&args);
    assert!(out.status.success(), "{key}: {}", super::text(&out.stderr));
    let mut got = Vec::new();
    for k in 0.. {
        let p = dir.join(format!("output_{k}.npy"));
        if !p.is_file() {
            break;
        }
        got.push(npy_data(&p));
    }
    got
}
