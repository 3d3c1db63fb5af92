//! `zeropoint calibrate`: per-tensor statistics of a float model over samples from `.npy`
//! files, images or seeded random data, written as JSON. A model with several signatures is
//! calibrated per signature (`--signature-data KEY=X.npy`, each signature on its own samples, as
//! TF's representative dataset of `(key, inputs)` tuples; or one source whose samples run through
//! every signature, when all take the same inputs) into one versioned file
//! ([`zeropoint::quant::calibrate::SignatureStats`]). [`Setup`] (the model, shapes, limits and
//! threads), [`collect_stats`] and [`Setup::signature_stats`] are shared with `zeropoint
//! quantize`.

use std::path::{Path, PathBuf};

use clap::Args;
use zeropoint::kernels::KernelSet;
use zeropoint::kernels::litert_optimized::caches::CacheSizes;
use zeropoint::limits::UserLimits;
use zeropoint::quant::calibrate::{
    CalibrationState, CalibrationStats, Calibrator, Method, SignatureStats, carries_state,
};
use zeropoint::quant::inputs::Normalization;
use zeropoint::quant::sqnr::ErrorSamples;
use zeropoint::{Error, Result};

use crate::io::{ShapeArgs, load, outln, read_file, write_json};
use crate::samples::npy_err;

#[derive(Args)]
pub struct CalibrateArgs {
    /// The float .tflite file.
    model: PathBuf,
    /// One .npy per model input, in the subgraph's input order (first axis = samples); for a
    /// model with several signatures that all take the same inputs, in the signature's input
    /// order, run through every signature.
    #[arg(long = "data")]
    data: Vec<PathBuf>,
    /// Samples of one signature of a model with several: `KEY=X.npy`, once per input of that
    /// signature, in the signature's input order (as `inspect` lists them); every signature
    /// needs its samples. Writes one statistics file for all signatures.
    #[arg(long = "signature-data", value_name = "KEY=X.npy")]
    signature_data: Vec<String>,
    /// A folder of PNG/JPEG images for the (single, NHWC) input, resized to its H×W.
    #[arg(long)]
    images: Option<PathBuf>,
    /// Image normalisation: (pixel − mean) / std, pixels 0..255; one value or one per channel.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    mean: Vec<f32>,
    /// See --mean.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    std: Vec<f32>,
    /// LO,HI: the value range of images (pixel 0 → LO, 255 → HI) or of random data.
    #[arg(long, value_parser = parse_range, allow_hyphen_values = true)]
    range: Option<(f32, f32)>,
    /// N samples of seeded random data, uniform in --range.
    #[arg(long)]
    random: Option<usize>,
    /// Seed for --random.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Range selection: minmax, percentile:P, mse or moving-average (also `--calibration`).
    #[arg(long, default_value = "minmax", alias = "calibration")]
    method: String,
    /// Where to write the statistics (JSON).
    #[arg(short, long)]
    output: PathBuf,
    #[command(flatten)]
    shapes: ShapeArgs,
    #[command(flatten)]
    threads: ThreadsArg,
}

/// `LO,HI` → (LO, HI).
fn parse_range(text: &str) -> std::result::Result<(f32, f32), String> {
    let (lo, hi) = text
        .split_once(',')
        .ok_or_else(|| format!("'{text}' is not LO,HI"))?;
    let num = |v: &str| {
        v.trim()
            .parse::<f32>()
            .map_err(|_| format!("'{v}' is not a number"))
    };
    Ok((num(lo)?, num(hi)?))
}

/// Where `zeropoint calibrate` takes its samples from.
#[derive(Clone)]
pub enum CalibrationSource {
    Npy(Vec<PathBuf>),
    Images(PathBuf, Normalization),
    Random(usize, f32, f32, u64),
}

/// `zeropoint calibrate`: checks that exactly one source of samples is given, then calibrates.
pub fn calibrate(args: CalibrateArgs, limits: &UserLimits) -> Result<()> {
    let CalibrateArgs {
        model,
        data,
        signature_data,
        images,
        mean,
        std,
        range,
        random,
        seed,
        method,
        output,
        shapes,
        threads,
    } = args;
    let given = usize::from(!data.is_empty())
        + usize::from(!signature_data.is_empty())
        + usize::from(images.is_some())
        + usize::from(random.is_some());
    let usage = |reason: &str| Error::Calibration {
        reason: reason.to_string(),
    };
    if given != 1 {
        return Err(usage(
            "give exactly one source of samples: --data X.npy (one per input), --images \
             DIR, --random N --range LO,HI, or --signature-data KEY=X.npy (a model with several \
             signatures)",
        ));
    }
    let setup = Setup::new(&model, &shapes, limits, threads)?;
    let method = Method::parse(&method)?;
    let source = if let Some(dir) = images {
        let norm = match (mean.is_empty(), std.is_empty(), range) {
            (false, false, None) => Normalization::MeanStd { mean, std },
            (true, true, Some((lo, hi))) => Normalization::Range { lo, hi },
            _ => {
                return Err(usage(
                    "--images needs either --mean M --std S or --range LO,HI",
                ));
            }
        };
        Some(CalibrationSource::Images(dir, norm))
    } else if let Some(n) = random {
        let (lo, hi) = range.ok_or_else(|| usage("--random needs --range LO,HI"))?;
        Some(CalibrationSource::Random(n, lo, hi, seed))
    } else if !data.is_empty() {
        Some(CalibrationSource::Npy(data))
    } else {
        None
    };
    if setup.model.signatures.len() > 1 || !signature_data.is_empty() {
        // Every signature on its own samples, or (one source) on the same samples.
        let samples = match source {
            Some(source) => SignatureSamples::Shared(source),
            None => SignatureSamples::PerKey(&signature_data),
        };
        let stats = setup.signature_stats(samples, method, None)?;
        for s in &stats.signatures {
            print_stats(&format!("{} ", s.key), &s.stats);
        }
        write_json(&output, &stats)?;
        let counts: Vec<String> = stats
            .signatures
            .iter()
            .map(|s| format!("'{}' {} samples", s.key, s.stats.samples))
            .collect();
        eprintln!(
            "wrote {} ({} signatures: {}; method {method})",
            output.display(),
            stats.signatures.len(),
            counts.join(", ")
        );
        return Ok(());
    }
    let Some(source) = source else {
        return Err(usage("give a source of samples"));
    };
    let stats = setup.stats(&setup.model, source, method, None)?;
    print_stats("", &stats);
    write_json(&output, &stats)?;
    eprintln!(
        "wrote {} ({} tensors, {} samples, method {method})",
        output.display(),
        stats.tensors.len() + stats.nested.len(),
        stats.samples
    );
    Ok(())
}

/// Prints each tensor's statistics, one line each, `prefix` first (tensors inside WHILE / IF
/// subgraphs follow, as "subgraph:index").
fn print_stats(prefix: &str, stats: &CalibrationStats) {
    for t in stats.tensors.iter().chain(&stats.nested) {
        let at = if t.subgraph == 0 {
            t.index.to_string()
        } else {
            format!("{}:{}", t.subgraph, t.index)
        };
        outln!(
            "{prefix}{:>5}  [{:>12.6e}, {:>12.6e}]  chosen [{:>12.6e}, {:>12.6e}]  {}",
            at,
            t.min,
            t.max,
            t.chosen_min,
            t.chosen_max,
            t.name
        );
    }
}

/// What `calibrate` and every path of `quantize` start from: the model read within the limits,
/// the input shapes to calibrate at, and the number of calibration threads.
pub struct Setup<'a> {
    /// The model as stored (the quantizer works on it; calibration applies the shapes).
    pub model: zeropoint::Model,
    /// `--shape` / `--batch`.
    pub shapes: &'a ShapeArgs,
    /// The limits every read and prepare honours.
    pub limits: &'a UserLimits,
    /// `--threads`.
    pub threads: usize,
    /// The calibration kernels (`--tf-caches`).
    pub kernels: KernelSet,
}

impl<'a> Setup<'a> {
    /// Reads the model at `path` and the thread count.
    pub fn new(
        path: &Path,
        shapes: &'a ShapeArgs,
        limits: &'a UserLimits,
        threads: ThreadsArg,
    ) -> Result<Self> {
        Ok(Setup {
            model: load(path, limits)?,
            shapes,
            limits,
            threads: threads.count()?,
            kernels: threads.kernels()?,
        })
    }

    /// The statistics of `m` (the model or a part of it, calibrated at the chosen shapes) over
    /// `source` ([`collect_stats`]).
    pub fn stats(
        &self,
        m: &zeropoint::Model,
        source: CalibrationSource,
        method: Method,
        errors: Option<&mut ErrorSamples>,
    ) -> Result<CalibrationStats> {
        let shaped = self.shapes.apply(m.clone())?;
        collect_stats(
            &shaped,
            source,
            method,
            self.limits,
            errors,
            self.threads,
            self.kernels,
        )
    }

    /// Every signature of the model calibrated on its samples ([`Setup::signature_sources`]) as
    /// a model of its own ([`zeropoint::quant::signature_model`]), in the model's signature
    /// order. With `errors`, each signature's first samples are kept there too (one
    /// [`ErrorSamples`] per signature, in the same order), for the report's errors.
    ///
    /// # Errors
    /// What [`Setup::signature_sources`] refuses, and what calibration refuses (a file of the
    /// wrong shape or type), naming the signature.
    pub fn signature_stats(
        &self,
        samples: SignatureSamples,
        method: Method,
        mut errors: Option<&mut Vec<ErrorSamples>>,
    ) -> Result<SignatureStats> {
        let mut all = Vec::new();
        for (key, source) in self.signature_sources(samples)? {
            let part = zeropoint::quant::signature_model(&self.model, &key)?;
            let mut kept = errors.as_ref().map(|_| ErrorSamples::new());
            let stats = self
                .stats(&part, source, method, kept.as_mut())
                .map_err(|e| in_signature(&key, e))?;
            if let (Some(errors), Some(kept)) = (errors.as_deref_mut(), kept) {
                errors.push(kept);
            }
            all.push((key, stats));
        }
        Ok(SignatureStats::new(all))
    }

    /// `(key, samples)` for every signature, in the model's order: each signature's own files
    /// ([`Setup::signature_files`]), or one source for all of them when every signature takes
    /// the same inputs (count, shapes and types, in the signature's input order, as `inspect`
    /// lists them). `.npy` files of a shared source are given in that order and handed to each
    /// signature in its subgraph's; random data is drawn in each subgraph's input order.
    ///
    /// # Errors
    /// What [`Setup::signature_files`] refuses; with one source, [`Error::Calibration`] naming
    /// the first signature whose inputs differ from the first signature's, and saying to give
    /// each signature its samples with `--signature-data`.
    pub fn signature_sources(
        &self,
        samples: SignatureSamples,
    ) -> Result<Vec<(String, CalibrationSource)>> {
        use zeropoint::engine::signatures::{SignatureTensor, keys, resolve};
        let source = match samples {
            SignatureSamples::PerKey(items) => {
                let files = self.signature_files(items)?;
                return Ok(files
                    .into_iter()
                    .map(|(key, files)| (key, CalibrationSource::Npy(files)))
                    .collect());
            }
            SignatureSamples::Shared(source) => source,
        };
        let m = &self.model;
        let describe = |inputs: &[SignatureTensor]| -> Vec<String> {
            inputs
                .iter()
                .map(|t| format!("{} {:?} {:?}", t.name, t.shape, t.dtype))
                .collect()
        };
        let mut first: Option<(String, Vec<String>)> = None;
        let mut all = Vec::new();
        for key in keys(m) {
            let sig = resolve(m, &key)?;
            let inputs = describe(&sig.inputs);
            match &first {
                None => first = Some((key.clone(), inputs)),
                Some((k0, want)) if *want != inputs => {
                    return Err(Error::Calibration {
                        reason: format!(
                            "one source of samples for all {} signatures needs the same inputs \
                             in each: signature '{key}' takes ({}), signature '{k0}' takes ({}); \
                             give each signature its samples with --signature-data KEY=X.npy",
                            m.signatures.len(),
                            inputs.join(", "),
                            want.join(", ")
                        ),
                    });
                }
                Some(_) => {}
            }
            let source = match &source {
                // Given in the signature's input order; the calibrator takes its subgraph's.
                CalibrationSource::Npy(paths) if paths.len() == sig.inputs.len() => {
                    let mut ordered = paths.clone();
                    for (t, path) in sig.inputs.iter().zip(paths) {
                        ordered[t.position] = path.clone();
                    }
                    CalibrationSource::Npy(ordered)
                }
                other => other.clone(),
            };
            all.push((key, source));
        }
        Ok(all)
    }

    /// `--signature-data KEY=X.npy …` checked against the model's signatures: `(key, files)`
    /// for every signature, in the model's order, the files given in the signature's input
    /// order and returned in its subgraph's (the order the calibrator takes them in).
    ///
    /// # Errors
    /// A model with fewer than two signatures, an item that is not `KEY=X.npy`, a key the model
    /// lacks ([`Error::UnknownSignature`]), a signature with no or too few files.
    pub fn signature_files(&self, items: &[String]) -> Result<Vec<(String, Vec<PathBuf>)>> {
        use zeropoint::engine::signatures::{keys, resolve};
        let m = &self.model;
        let known = keys(m);
        if known.len() < 2 {
            return Err(Error::Calibration {
                reason: format!(
                    "--signature-data is for a model with several signatures; this one has {} \
                     (use --data)",
                    known.len()
                ),
            });
        }
        let mut files: Vec<(String, Vec<PathBuf>)> =
            known.iter().map(|k| (k.clone(), Vec::new())).collect();
        for item in items {
            let (key, path) = item.split_once('=').ok_or_else(|| Error::Calibration {
                reason: format!("--signature-data {item}: expected KEY=X.npy"),
            })?;
            let slot = files.iter_mut().find(|(k, _)| k == key).ok_or_else(|| {
                Error::UnknownSignature {
                    key: key.to_string(),
                    known: known.clone(),
                }
            })?;
            slot.1.push(PathBuf::from(path));
        }
        for (key, given) in &mut files {
            let sig = resolve(m, key)?;
            if given.len() != sig.inputs.len() {
                let names: Vec<&str> = sig.inputs.iter().map(|t| t.name.as_str()).collect();
                return Err(Error::Calibration {
                    reason: format!(
                        "signature '{key}' has {} input(s) ({}): give --signature-data \
                         {key}=X.npy for each, in that order ({} given)",
                        names.len(),
                        names.join(", "),
                        given.len()
                    ),
                });
            }
            // The calibrator takes the subgraph's inputs in its own order.
            let mut ordered = given.clone();
            for (t, path) in sig.inputs.iter().zip(given.iter()) {
                ordered[t.position] = path.clone();
            }
            *given = ordered;
        }
        Ok(files)
    }
}

/// The samples each signature of a model with several is calibrated on.
pub enum SignatureSamples<'s> {
    /// `--signature-data KEY=X.npy …`: each signature its own files.
    PerKey(&'s [String]),
    /// One source (`--data`, `--images`, `--random`) for every signature: the same samples run
    /// through each (their inputs must match).
    Shared(CalibrationSource),
}

/// `e`, raised while calibrating signature `key`, with the signature named.
pub fn in_signature(key: &str, e: Error) -> Error {
    let at = |s: String| format!("signature '{key}': {s}");
    match e {
        Error::Calibration { reason } => Error::Calibration { reason: at(reason) },
        Error::Npy { path, reason } => Error::Npy {
            path,
            reason: at(reason),
        },
        Error::TensorMismatch {
            what,
            tensor,
            expected,
            got,
        } => Error::TensorMismatch {
            what: at(what),
            tensor,
            expected,
            got,
        },
        other => other,
    }
}

/// How the calibration engine runs: `--threads N` (how many calibrators run at once, each on
/// its own slice of the samples) and `--tf-caches` (whose CPU's TF arithmetic they reproduce).
#[derive(Args, Debug, Clone, Default)]
pub struct ThreadsArg {
    /// Calibrate on N threads, each with its own engine and a contiguous slice of the samples,
    /// merged exactly (the statistics and the model written are the same for every N). Default:
    /// the available parallelism, at most 4. A model that carries state from one sample to the
    /// next (LSTM, RNN, variables) is calibrated on one thread.
    #[arg(long, value_name = "N")]
    threads: Option<usize>,
    /// The data caches of the CPU whose TF calibration to reproduce: `host` (default: this
    /// machine's, read with cpuid as Eigen reads them, so the scales equal what TF computes
    /// here; `golden` where there is no x86 cpuid), `golden` (the machine the test goldens were
    /// made on: 48,2048,491520) or
    /// `L1,L2,L3` in KiB. Eigen cuts the float sums of convolutions with long reductions by
    /// them, so TF's min/max of such outputs, and a scale's last bits, differ between CPUs.
    #[arg(long, value_name = "host|golden|L1,L2,L3")]
    tf_caches: Option<String>,
}

/// The default of `--threads`: the available parallelism, at most this.
const MAX_DEFAULT_THREADS: usize = 4;

impl ThreadsArg {
    /// The calibration kernels: TF's float arithmetic on the CPU `--tf-caches` names.
    pub fn kernels(&self) -> Result<KernelSet> {
        let caches = match self.tf_caches.as_deref().unwrap_or("host") {
            "host" => CacheSizes::host().unwrap_or(CacheSizes::GOLDEN),
            sizes => sizes
                .parse()
                .map_err(|reason| Error::Calibration { reason })?,
        };
        Ok(KernelSet::LiteRtOptimized(caches))
    }

    /// The number of threads asked for (at least 1).
    pub fn count(&self) -> Result<usize> {
        match self.threads {
            Some(0) => Err(Error::Calibration {
                reason: "--threads must be at least 1".into(),
            }),
            Some(n) => Ok(n),
            None => Ok(std::thread::available_parallelism()
                .map_or(1, usize::from)
                .min(MAX_DEFAULT_THREADS)),
        }
    }
}

/// The samples of a [`CalibrationSource`], checked against the model's inputs and readable from
/// any sample on (so that each thread reads its own slice).
enum Samples {
    Npy(Vec<zeropoint::quant::inputs::NpySamples>),
    Images(Vec<PathBuf>, Normalization, zeropoint::engine::TensorDesc),
    Random {
        n: usize,
        lo: f32,
        hi: f32,
        seed: u64,
        sizes: Vec<usize>,
    },
}

impl Samples {
    /// Reads and checks `source` for a model with inputs `descs`.
    fn new(source: CalibrationSource, descs: &[zeropoint::engine::TensorDesc]) -> Result<Self> {
        use zeropoint::quant::inputs::{NpySamples, RandomSource};
        Ok(match source {
            CalibrationSource::Npy(paths) => {
                if paths.len() != descs.len() {
                    return Err(Error::Calibration {
                        reason: format!(
                            "{} --data file(s) for {} model input(s): give one .npy per input, \
                             in the subgraph's input order",
                            paths.len(),
                            descs.len()
                        ),
                    });
                }
                let mut arrays = Vec::with_capacity(paths.len());
                for (i, (p, d)) in paths.iter().zip(descs).enumerate() {
                    let bytes = read_file(p)?;
                    let a = NpySamples::from_bytes(&p.display().to_string(), &bytes, i, d)?;
                    if a.samples() != arrays.first().map_or(a.samples(), NpySamples::samples) {
                        return Err(npy_err(
                            p,
                            format!(
                                "{} samples, but input 0 has {}",
                                a.samples(),
                                arrays[0].samples()
                            ),
                        ));
                    }
                    arrays.push(a);
                }
                Samples::Npy(arrays)
            }
            CalibrationSource::Images(dir, norm) => {
                if descs.len() != 1 {
                    return Err(Error::Calibration {
                        reason: format!(
                            "--images needs a model with one input; this one has {}",
                            descs.len()
                        ),
                    });
                }
                let io = |source| Error::Io {
                    path: dir.display().to_string(),
                    source,
                };
                let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
                    .map_err(io)?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| {
                        p.extension().and_then(|x| x.to_str()).is_some_and(|x| {
                            matches!(x.to_ascii_lowercase().as_str(), "png" | "jpg" | "jpeg")
                        })
                    })
                    .collect();
                files.sort();
                if files.is_empty() {
                    return Err(Error::Calibration {
                        reason: format!("{}: no .png, .jpg or .jpeg files", dir.display()),
                    });
                }
                Samples::Images(files, norm, descs[0].clone())
            }
            CalibrationSource::Random(n, lo, hi, seed) => {
                RandomSource::new(lo, hi, seed)?;
                Samples::Random {
                    n,
                    lo,
                    hi,
                    seed,
                    sizes: descs.iter().map(|d| d.num_elements()).collect(),
                }
            }
        })
    }

    /// Number of samples.
    fn len(&self) -> usize {
        match self {
            Samples::Npy(a) => a.first().map_or(0, |a| a.samples()),
            Samples::Images(files, ..) => files.len(),
            Samples::Random { n, .. } => *n,
        }
    }

    /// Calls `f` with the inputs of each sample of `range`, in order.
    fn each(
        &self,
        range: std::ops::Range<usize>,
        mut f: impl FnMut(&[&[f32]]) -> Result<()>,
    ) -> Result<()> {
        use zeropoint::quant::inputs::{self, RandomSource};
        match self {
            Samples::Npy(arrays) => {
                for s in range {
                    let x: Vec<&[f32]> = arrays.iter().map(|a| a.sample(s)).collect();
                    f(&x)?;
                }
            }
            Samples::Images(files, norm, desc) => {
                for file in &files[range] {
                    let bytes = read_file(file)?;
                    let v = inputs::image_sample(&file.display().to_string(), &bytes, desc, norm)?;
                    f(&[&v])?;
                }
            }
            Samples::Random {
                lo,
                hi,
                seed,
                sizes,
                ..
            } => {
                // One stream of values for all samples: the slice's start draws and drops the
                // values of the samples before it.
                let mut rng = RandomSource::new(*lo, *hi, *seed)?;
                let mut bufs: Vec<Vec<f32>> = sizes.iter().map(|&n| vec![0.0; n]).collect();
                for s in 0..range.end {
                    bufs.iter_mut().for_each(|b| rng.fill(b));
                    if s >= range.start {
                        let x: Vec<&[f32]> = bufs.iter().map(Vec::as_slice).collect();
                        f(&x)?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Records `samples`' slice `range` on `cal`.
fn record(cal: &mut Calibrator, samples: &Samples, range: std::ops::Range<usize>) -> Result<()> {
    samples.each(range, |x| {
        for (i, v) in x.iter().enumerate() {
            cal.set_input(i, v)?;
        }
        cal.add_sample()
    })
}

/// Streams the samples of `source` through the calibrator of `m`, on `threads` calibrators at
/// once, each on a contiguous slice of the samples, their statistics merged in sample order
/// (exactly those of one calibrator: [`CalibrationState::merge`]). One thread for a model that
/// carries state between samples ([`carries_state`]).
pub fn collect_stats(
    m: &zeropoint::Model,
    source: CalibrationSource,
    method: Method,
    limits: &UserLimits,
    errors: Option<&mut ErrorSamples>,
    threads: usize,
    kernels: KernelSet,
) -> Result<CalibrationStats> {
    let mut cal = Calibrator::with_options(m, &limits.engine, kernels)?;
    let samples = Samples::new(source, cal.inputs())?;
    let n = samples.len();
    // The first samples, for the report's errors (and `--auto`'s scoring: up to its cap).
    if let Some(e) = errors {
        samples.each(0..n.min(e.cap()), |x| {
            for (i, v) in x.iter().enumerate() {
                e.set_input(i, v);
            }
            e.commit();
            Ok(())
        })?;
    }
    let mut threads = threads.clamp(1, n.max(1));
    if threads > 1
        && let Some(why) = carries_state(m)
    {
        eprintln!("calibrating on one thread: {why}");
        threads = 1;
    }
    if threads == 1 {
        record(&mut cal, &samples, 0..n)?;
        return cal.stats(method);
    }
    drop(cal);
    eprintln!("calibrating on {threads} threads");
    let bounds: Vec<usize> = (0..=threads).map(|k| k * n / threads).collect();
    let states = std::thread::scope(|scope| {
        let samples = &samples;
        // The engine is not `Send`: each thread prepares its own.
        let handles: Vec<_> = bounds
            .windows(2)
            .map(|w| {
                let (start, end) = (w[0], w[1]);
                scope.spawn(move || -> Result<CalibrationState> {
                    let mut cal = Calibrator::with_options(m, &limits.engine, kernels)?;
                    cal.for_slice(start)?;
                    record(&mut cal, samples, start..end)?;
                    Ok(cal.state())
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join().unwrap_or_else(|_| {
                    Err(Error::Calibration {
                        reason: "a calibration thread stopped unexpectedly".into(),
                    })
                })
            })
            .collect::<Vec<_>>()
    });
    // The first failing slice has the first failing sample.
    let mut merged = CalibrationState::default();
    for s in states {
        merged.merge(&s?)?;
    }
    merged.stats(method)
}
