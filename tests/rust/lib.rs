//! Helpers shared by the golden and cross-tool tests: where the goldens are, and walking them.

use std::path::{Path, PathBuf};

/// The repository root (parent of this crate's folder).
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// Every `.tflite` the repository ships: the goldens under `tests/golden/` and the page's bundled
/// example under `www/assets/`, sorted for stable output.
pub fn shipped_models() -> Vec<PathBuf> {
    let root = repo_root();
    let mut out = Vec::new();
    for dir in [root.join("tests/golden"), root.join("www/assets")] {
        collect(&dir, &mut out);
    }
    out.sort();
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x == "tflite") {
            out.push(p);
        }
    }
}
