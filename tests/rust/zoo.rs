//! The architecture zoo (`tests/zoo/`, written by `tests/tools/make_zoo.py`): ≥ 20 common
//! architectures exported as users export them, measured through TF 2.21, LiteRT 2.3 and our
//! release CLI into `tests/zoo/results.json`.
//!
//! Two checks:
//! - the README's "Architecture coverage" table is what `results.json` renders to (this file is
//!   the one renderer; `ZP_BLESS=1 cargo test -p zeropoint-tests --test zoo` writes it, and
//!   `make_zoo.py` runs that), so the table cannot be edited by hand;
//! - the small architectures committed under `tests/zoo/<arch>/` (TF's float, int8, int8 with
//!   float I/O and 16x8 models, held-out inputs, LiteRT's outputs) run through our engine with
//!   LiteRT's exact bytes wherever `results.json` says they did; where it records a refusal or a
//!   difference, the engine must still refuse or differ (a fix then shows up as a failure asking
//!   to regenerate the results, so the table never understates what runs).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde_json::Value;
use zeropoint::engine::{Interpreter, Limits};
use zeropoint::tflite;
use zeropoint_tests::{CaseFilter, NpyArray, load_npy, repo_root, select};

const BEGIN: &str = "<!-- zoo-table:begin (generated from tests/zoo/results.json by tests/rust/zoo.rs: ZP_BLESS=1 cargo test -p zeropoint-tests --test zoo) -->";
const END: &str = "<!-- zoo-table:end -->";
/// The variants make_zoo.py converts, in table order.
const VARIANTS: [&str; 4] = ["float", "int8", "int8_floatio", "16x8"];

fn zoo_dir() -> PathBuf {
    repo_root().join("tests").join("zoo")
}

fn results() -> Value {
    let path = zoo_dir().join("results.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The architectures in make_zoo.py's order (`order`; the `archs` object's keys come sorted).
fn archs(r: &Value) -> Vec<(&str, &Value)> {
    let all = r["archs"].as_object().expect("archs");
    let order: Vec<&str> = r["order"]
        .as_array()
        .expect("order")
        .iter()
        .map(|n| n.as_str().expect("architecture name"))
        .collect();
    assert_eq!(order.len(), all.len(), "order must list every architecture");
    order
        .into_iter()
        .map(|n| {
            (
                n,
                all.get(n)
                    .unwrap_or_else(|| panic!("order names {n}, archs lacks it")),
            )
        })
        .collect()
}

/// Operators we cannot run in one variant: types without a kernel, then refused operators.
fn cannot_list(v: &Value) -> Vec<String> {
    let c = &v["cannot_run"];
    let mut out: Vec<String> = Vec::new();
    if let Some(m) = c["no_kernel"].as_object() {
        out.extend(m.iter().map(|(op, n)| format!("{op} ×{n}")));
    }
    if let Some(m) = c["refused"].as_object() {
        out.extend(m.iter().map(|(op, e)| {
            format!(
                "{op} ×{} ({})",
                e["count"],
                e["kind"].as_str().unwrap_or("refused")
            )
        }));
    }
    out
}

/// A short reason for a variant that did not give a number.
fn failure(v: &Value) -> Option<String> {
    if v["tf_crashed"].as_bool() == Some(true) {
        return Some("TF crashes".into());
    }
    if v.get("tf_error").is_some() {
        return Some("TF refuses".into());
    }
    if v.get("litert_error").is_some() {
        return Some("LiteRT cannot run".into());
    }
    if v.get("ours_error").is_some() {
        return Some("refused".into());
    }
    None
}

/// `‡` where LiteRT's reference resolver registers an operator only up to an older version and
/// ran the model with that operator's version field lowered; `†` where it could not run it and
/// LiteRT's optimized builtin kernels gave the outputs.
fn dagger(v: &Value) -> &'static str {
    if v["litert_resolver"].as_str() == Some("optimized") {
        "†"
    } else if v.get("litert_lowered_versions").is_some() {
        "‡"
    } else {
        ""
    }
}

fn pct_cell(v: &Value) -> String {
    if let Some(f) = failure(v) {
        return f;
    }
    match v["pct_bit_exact"].as_f64() {
        Some(p) => format!("{}{}", trim_pct(p), dagger(v)),
        None => "—".into(),
    }
}

fn trim_pct(p: f64) -> String {
    if p == 100.0 {
        "100".into()
    } else {
        format!("{p:.2}")
    }
}

fn float_cell(v: &Value) -> String {
    if let Some(f) = failure(v) {
        return f;
    }
    if v["bit_identical"].as_bool() == Some(true) {
        return format!("0 (bit-identical){}", dagger(v));
    }
    match v["max_rel_err"].as_f64() {
        Some(e) => format!("{e:.1e}{}", dagger(v)),
        None => "—".into(),
    }
}

fn db(v: &Value) -> String {
    match v {
        Value::Number(n) => format!("{:.1}", n.as_f64().unwrap_or(f64::NAN)),
        Value::String(s) => s.clone(),
        _ => "—".into(),
    }
}

/// The gist of a CLI error: without its `error: ` prefix, up to the first `. `, `; ` or ` (`
/// (the details and advice after it), at most 200 characters.
fn gist(e: &str) -> String {
    let e = e.strip_prefix("error: ").unwrap_or(e);
    let end = [". ", "; ", " ("]
        .iter()
        .filter_map(|sep| e.find(sep))
        .min()
        .unwrap_or(e.len());
    e[..end].chars().take(200).collect()
}

/// One table row.
fn row(name: &str, a: &Value) -> String {
    if let Some(how) = a["crashed"].as_str() {
        let how = how.replace('|', "\\|");
        return format!(
            "| {name} | — | the run ended its process: {how} | — | — | — | — | — | — |\n"
        );
    }
    let ops = a["ops"].as_object();
    let total: u64 = ops
        .map(|m| m.values().filter_map(Value::as_u64).sum())
        .unwrap_or(0);
    let types = ops.map_or(0, |m| m.len());
    let var = |v: &str| &a["variants"][v];
    let q = &a["ours_int8"];
    let loads = if q.get("error").is_some() {
        "quantize refused".to_string()
    } else {
        match q["litert_loads"].as_bool() {
            Some(true) => format!("yes{}", dagger(q)),
            Some(false) => "no".into(),
            None => "—".into(),
        }
    };
    let (sqnr, time) = if q.get("seconds").is_some() {
        (
            format!("{} / {}", db(&q["sqnr_db"]), db(&q["tf_sqnr_db"])),
            format!("{:.1} s", q["seconds"].as_f64().unwrap_or(f64::NAN)),
        )
    } else {
        ("—".into(), "—".into())
    };
    let mut notes: Vec<String> = Vec::new();
    for v in VARIANTS {
        let list = cannot_list(var(v));
        if !list.is_empty() {
            notes.push(format!("{v}: {}", list.join(", ")));
        }
    }
    // TF's refusals and crashes, each message once with the variants it ended.
    let mut tf_errors: Vec<(&str, Vec<&str>)> = Vec::new();
    for v in VARIANTS {
        if let Some(e) = var(v)["tf_error"].as_str() {
            match tf_errors.iter_mut().find(|(m, _)| *m == e) {
                Some((_, vs)) => vs.push(v),
                None => tf_errors.push((e, vec![v])),
            }
        }
    }
    for (e, vs) in tf_errors {
        notes.push(format!("{}: {e}", vs.join(", ")));
    }
    if let Some(e) = q["error"].as_str() {
        notes.push(format!("our quantize: {}", gist(e)));
    }
    format!(
        "| {name} | {total} ({types} types) | {} | {} / {} | {} | {loads} | {sqnr} | {time} | {} |\n",
        float_cell(var("float")),
        pct_cell(var("int8")),
        pct_cell(var("int8_floatio")),
        pct_cell(var("16x8")),
        if notes.is_empty() {
            "—".to_string()
        } else {
            notes.join("; ").replace('|', "\\|")
        }
    )
}

/// The README section between the markers.
fn readme_table(r: &Value) -> String {
    let mut s = String::new();
    s.push_str(
        "| architecture | ops (count) | float max rel. err vs LiteRT | TF int8 bit-exact % (int8 I/O / float I/O) | TF 16x8 bit-exact % | ours loads in LiteRT | SQNR ours / TF (dB) | quantize time | what we cannot run |\n",
    );
    s.push_str("|---|---|---|---|---|---|---|---|---|\n");
    for (name, a) in archs(r) {
        s.push_str(&row(name, a));
    }
    let v = &r["versions"];
    let _ = write!(
        s,
        "\nTF {} / Keras {} converter, LiteRT {} `BUILTIN_REF` outputs on {} held-out inputs; \
         calibration: the same {} samples for TF and for `zeropoint quantize --mode int8 --io float`. \
         SQNR: all output elements vs the float model's. ‡ LiteRT's reference resolver registers an \
         operator of this model only up to an older version (int8 TILE, DEPTH_TO_SPACE): it ran a \
         copy with that operator's version field lowered. † it could not run the model at all; \
         LiteRT's optimized builtin kernels gave the outputs. \
         \"refused\": our engine cannot prepare the model (last column: operators without a \
         kernel, and operators the engine refuses, per variant). \"TF crashes\": TF's converter \
         killed its process (SIGSEGV in its calibrator on WHILE loops, \
         tensorflow/tensorflow#75140), so there is no TF model of that variant; \"quantize \
         refused\": `zeropoint quantize` refused the model (its reason in the last column).\n",
        v["tensorflow"].as_str().unwrap_or("?"),
        v["keras"].as_str().unwrap_or("?"),
        v["ai_edge_litert"].as_str().unwrap_or("?"),
        r["heldout_samples"],
        r["calibration_samples"],
    );
    s
}

#[test]
fn readme_table_matches_results() {
    let r = results();
    let n = archs(&r).len();
    assert!(
        n >= 20,
        "results.json has {n} architectures, the zoo has at least 20"
    );
    let table = readme_table(&r);
    let path = repo_root().join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let (Some(b), Some(e)) = (readme.find(BEGIN), readme.find(END)) else {
        panic!("README.md lacks the zoo-table markers");
    };
    let start = b + BEGIN.len() + 1;
    let current = &readme[start..e];
    if current == table {
        return;
    }
    if std::env::var_os("ZP_BLESS").is_some() {
        let text = format!("{}{table}{}", &readme[..start], &readme[e..]);
        std::fs::write(&path, text).expect("write README.md");
        return;
    }
    panic!(
        "README.md's architecture table differs from tests/zoo/results.json: \
         ZP_BLESS=1 cargo test -p zeropoint-tests --test zoo"
    );
}

/// Our engine's outputs of `model` on every sample of `input` (bytes per output), or the error.
fn run(model: &Path, input: &NpyArray) -> Result<Vec<Vec<u8>>, String> {
    let bytes = std::fs::read(model).map_err(|e| e.to_string())?;
    let m = tflite::read(&bytes).map_err(|e| e.to_string())?;
    let mut it = Interpreter::with_limits(&m, &Limits::default()).map_err(|e| e.to_string())?;
    let mut got: Vec<Vec<u8>> = vec![Vec::new(); it.outputs().len()];
    for s in 0..input.samples() {
        it.set_input(0, &input.sample_bytes(s))
            .map_err(|e| e.to_string())?;
        it.invoke().expect("the model runs");
        for (o, buf) in got.iter_mut().enumerate() {
            buf.extend_from_slice(it.output(o).map_err(|e| e.to_string())?.bytes);
        }
    }
    Ok(got)
}

/// Whether results.json says our engine gave LiteRT's exact bytes for this variant.
fn recorded_exact(v: &Value) -> bool {
    v["bit_identical"].as_bool() == Some(true) || v["pct_bit_exact"].as_f64() == Some(100.0)
}

#[test]
fn committed_architectures_match_litert() {
    let r = results();
    let committed: Vec<String> = archs(&r)
        .into_iter()
        .filter(|(_, a)| a["committed"].as_bool() == Some(true))
        .map(|(n, _)| n.to_string())
        .collect();
    assert!(
        committed.len() >= 4,
        "only {} architectures committed",
        committed.len()
    );
    let chosen = select("zoo", committed, Clone::clone, CaseFilter::from_env());
    let mut problems: Vec<String> = Vec::new();
    let mut exact = 0;
    let panics = chosen.each(|name| {
        let a = &r["archs"][name.as_str()];
        let dir = zoo_dir().join(name);
        for vname in VARIANTS {
            let v = &a["variants"][vname];
            let model = dir.join(format!("model_{vname}.tflite"));
            if !model.is_file() {
                assert!(
                    failure(v).is_some_and(|f| f != "refused"),
                    "{name}/{vname}: no model file, but results.json does not say TF or LiteRT failed"
                );
                continue;
            }
            let quantized = dir.join(format!("input_{vname}_0.npy"));
            let input = load_npy(&if quantized.is_file() {
                quantized
            } else {
                dir.join("input_0.npy")
            });
            let expected: Vec<Vec<u8>> = (0..)
                .map(|k| dir.join(format!("expected_{vname}_output_{k}.npy")))
                .take_while(|p| p.is_file())
                .map(|p| {
                    let a = load_npy(&p);
                    (0..a.samples()).flat_map(|i| a.sample_bytes(i)).collect()
                })
                .collect();
            let outcome = run(&model, &input);
            let same = outcome.as_ref().is_ok_and(|got| *got == expected);
            match (recorded_exact(v), same) {
                (true, true) => exact += 1,
                (true, false) => problems.push(format!(
                    "{name}/{vname}: results.json records LiteRT's exact bytes, the engine now {}",
                    match &outcome {
                        Ok(_) => "differs".to_string(),
                        Err(e) => format!("refuses: {e}"),
                    }
                )),
                (false, true) => problems.push(format!(
                    "{name}/{vname}: the engine now gives LiteRT's exact bytes; regenerate \
                     tests/zoo/results.json (make_zoo.py --only {name})"
                )),
                (false, false) => {}
            }
        }
    });
    problems.extend(panics);
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    chosen.expect_checked(exact, "bit-exact zoo variant");
    eprintln!("zoo: {exact} committed variants bit-exact against LiteRT");
}
