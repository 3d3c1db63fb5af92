//! The [`Calibrator`]: sets each sample's inputs, runs the float engine and records every float
//! tensor it reports into that tensor's accumulator, all or nothing per sample (the order is in
//! the [module docs](super)).

use std::collections::HashSet;

use super::kept_states::KeptStates;
use super::method::Method;
use super::profile::{CalibrationProfile, Profiling};
use super::state::{CalibrationState, stats_of};
use super::stats::{CalibrationStats, STATS_BYTES_PER_TENSOR, TensorAcc};
use super::tf_inplace::tf_inplace_inputs;
use crate::engine::{Interpreter, Limits, TensorDesc, TensorId, TensorView};
use crate::error::{Error, Result};
use crate::graph::{Model, TensorType};
use crate::kernels::KernelSet;
use crate::kernels::litert_optimized::caches::CacheSizes;
use crate::kernels::observe::scan;

/// The kernels [`Calibrator::new`] runs: LiteRT's optimized float kernels' arithmetic, which TF's
/// calibrator runs, so min/max equal TF's bit for bit (reference kernels differ in the last bits
/// of conv, FC, softmax, … outputs), as TF computes them on the machine the goldens were made on
/// ([`CacheSizes::GOLDEN`]; [`Calibrator::with_options`] takes another CPU's caches).
pub const CALIBRATION_KERNELS: KernelSet = KernelSet::LiteRtOptimized(CacheSizes::GOLDEN);

/// Where a non-finite value was found in one sample.
struct Failure {
    value: f32,
    name: String,
    subgraph: usize,
    tensor: usize,
    element: usize,
}

fn value_name(v: f32) -> &'static str {
    if v.is_nan() {
        "NaN"
    } else if v > 0.0 {
        "+Inf"
    } else {
        "-Inf"
    }
}

/// Streams samples through the float engine and records per-tensor statistics.
///
/// Set every input with [`Calibrator::set_input`], then call [`Calibrator::add_sample`]; repeat.
/// Sample indices (in errors) count `add_sample` calls from 0, failed ones included.
pub struct Calibrator {
    interp: Interpreter,
    /// [`tf_inplace_inputs`] of the model.
    inplace: Vec<Option<usize>>,
    /// Accumulator index of each tensor, by subgraph (`u32::MAX`: not seen yet).
    slot_of: Vec<Vec<u32>>,
    accs: Vec<TensorAcc>,
    /// Accumulators touched by the current sample.
    touched: Vec<usize>,
    /// Which inputs were set since the last sample.
    set: Vec<bool>,
    samples: usize,
    attempts: usize,
    /// Whether tensors keep their per-sample extremes ([`Calibrator::for_slice`]).
    keep_extremes: bool,
    /// Operator name producing each tensor of subgraph 0 (for [`CalibrationProfile`]).
    producer: Vec<Option<String>>,
    /// The variable tensors whose states kernels keep (recorded after each run).
    kept: KeptStates,
    /// Float results of subgraph 0's operators the engine folded into constants at prepare time
    /// (FILL of constant dims and value, …): no step reports them, so each sample records their
    /// (constant) values itself, as TF's calibrator, which runs every operator, records them.
    folded: Vec<usize>,
}

impl Calibrator {
    /// Prepares the float engine for `model` (every unsupported operator listed at once) with
    /// [`CALIBRATION_KERNELS`]: the float arithmetic of TF's calibrator.
    pub fn new(model: &Model) -> Result<Self> {
        Self::with_kernels(model, CALIBRATION_KERNELS)
    }

    /// [`Calibrator::new`] with an explicit [`KernelSet`] (e.g. [`KernelSet::Reference`] to
    /// record what LiteRT's reference kernels compute).
    pub fn with_kernels(model: &Model, kernels: KernelSet) -> Result<Self> {
        Self::with_options(model, &Limits::default(), kernels)
    }

    /// [`Calibrator::new`] with explicit size [`Limits`] (the user's, from the CLI or the page).
    pub fn with_limits(model: &Model, limits: &Limits) -> Result<Self> {
        Self::with_options(model, limits, CALIBRATION_KERNELS)
    }

    /// [`Calibrator::new`] with explicit size [`Limits`] and [`KernelSet`].
    pub fn with_options(model: &Model, limits: &Limits, kernels: KernelSet) -> Result<Self> {
        // Statistics count against the arena limit: checked before anything is allocated.
        let floats = model.subgraphs.first().map_or(0, |sg| {
            (0..sg.tensors.len())
                .filter(|&t| {
                    sg.tensors[t].dtype == TensorType::FLOAT32 && model.tensor_data(0, t).is_none()
                })
                .count()
        });
        let need = floats.saturating_mul(STATS_BYTES_PER_TENSOR);
        if need > limits.max_arena_bytes {
            return Err(Error::TooLarge {
                what: "the calibration statistics".into(),
                detail: format!(
                    "{floats} float tensors × {STATS_BYTES_PER_TENSOR} bytes = {need} bytes, \
                     more than the arena limit of {} bytes",
                    limits.max_arena_bytes
                ),
            });
        }
        crate::graph::rewrites::refuse(model)?;
        let interp = Interpreter::with_options(model, limits, kernels)?;
        let n = model.subgraphs.first().map_or(0, |sg| sg.tensors.len());
        let inputs = interp.inputs().len();
        let mut producer = vec![None; n];
        for op in model.subgraphs.iter().take(1).flat_map(|sg| &sg.operators) {
            for &t in &op.outputs {
                if let Some(p) = usize::try_from(t).ok().and_then(|t| producer.get_mut(t)) {
                    *p = Some(op.code.name());
                }
            }
        }
        let stepped: HashSet<usize> = interp.step_infos().iter().map(|s| s.op_index).collect();
        let folded = model
            .subgraphs
            .first()
            .map(|sg| {
                sg.operators
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| !stepped.contains(i))
                    .flat_map(|(_, op)| op.outputs.iter())
                    .filter_map(|&t| usize::try_from(t).ok())
                    .filter(|&t| {
                        sg.tensors
                            .get(t)
                            .is_some_and(|x| x.dtype == TensorType::FLOAT32)
                            && model.tensor_data(0, t).is_none()
                    })
                    .collect()
            })
            .unwrap_or_default();
        Ok(Calibrator {
            producer,
            kept: KeptStates::new(model),
            folded,
            interp,
            inplace: tf_inplace_inputs(model),
            slot_of: model
                .subgraphs
                .iter()
                .map(|sg| vec![u32::MAX; sg.tensors.len()])
                .collect(),
            accs: Vec::new(),
            touched: Vec::new(),
            set: vec![false; inputs],
            samples: 0,
            attempts: 0,
            keep_extremes: false,
        })
    }

    /// The model inputs, in the subgraph's order.
    pub fn inputs(&self) -> &[TensorDesc] {
        self.interp.inputs()
    }

    /// Samples recorded so far.
    pub fn samples(&self) -> usize {
        self.samples
    }

    /// Sets input `i` for the next sample; the element count must match the input
    /// ([`Error::TensorMismatch`] with expected vs got otherwise).
    ///
    /// An INT32 input (token ids of a text model's embedding) takes the values as integers: each
    /// must be a whole number within `i32`, or the error names the element.
    pub fn set_input(&mut self, i: usize, values: &[f32]) -> Result<()> {
        match self.interp.inputs().get(i) {
            Some(d) if d.dtype == TensorType::INT32 => {
                let mut ints = Vec::with_capacity(values.len());
                for (e, &v) in values.iter().enumerate() {
                    // 2^31 is exactly representable; every f32 below it in magnitude fits.
                    if v.fract() != 0.0 || !(-2_147_483_648.0..2_147_483_648.0).contains(&v) {
                        return Err(Error::TensorMismatch {
                            what: format!("input {i}"),
                            tensor: d.name.clone(),
                            expected: format!("{} (whole numbers)", d.describe()),
                            got: format!("{v} at element {e}"),
                        });
                    }
                    ints.push(v as i32);
                }
                if ints.len() != d.num_elements() {
                    return Err(Error::TensorMismatch {
                        what: format!("input {i}"),
                        tensor: d.name.clone(),
                        expected: d.describe(),
                        got: format!("{} values", values.len()),
                    });
                }
                self.interp.set_input(i, bytemuck::cast_slice(&ints))?;
            }
            _ => self.interp.set_input_f32(i, values)?,
        }
        self.set[i] = true;
        Ok(())
    }

    /// Runs the model on the inputs set and records every float tensor. A NaN or infinity in an
    /// input or in a computed tensor is an [`Error::NonFinite`] naming the sample and where it
    /// is; the sample is then not recorded.
    pub fn add_sample(&mut self) -> Result<()> {
        self.run_sample(None)
    }

    /// [`Calibrator::add_sample`], adding where the time went to `profile`, timed with `clock`
    /// (any monotonic clock; `performance.now()` in the page).
    pub fn add_sample_profiled(
        &mut self,
        clock: &mut dyn FnMut() -> f64,
        profile: &mut CalibrationProfile,
    ) -> Result<()> {
        let start = clock();
        let r = self.run_sample(Some((&mut *clock, &mut *profile)));
        profile.total += clock() - start;
        profile.samples += usize::from(r.is_ok());
        r
    }

    fn run_sample(&mut self, mut profiling: Option<Profiling<'_>>) -> Result<()> {
        let sample = self.attempts;
        self.attempts += 1;
        if let Some(i) = self.set.iter().position(|s| !s) {
            return Err(Error::Calibration {
                reason: format!(
                    "sample {sample}: input {i} '{}' was not set",
                    self.interp.inputs()[i].name
                ),
            });
        }
        self.set.iter_mut().for_each(|s| *s = false);
        // Inputs first, so that bad data is reported as the input's, before anything runs.
        for (i, d) in self.interp.inputs().iter().enumerate() {
            let Some(values) = self.interp.tensor(d.id).and_then(|v| v.as_f32()) else {
                continue;
            };
            if let (_, _, Some(e)) = scan(values) {
                return Err(Error::NonFinite {
                    sample,
                    value: value_name(values[e]).into(),
                    place: format!("input {i} '{}' (element {e})", d.name),
                });
            }
        }
        let Calibrator {
            interp,
            inplace,
            slot_of,
            accs,
            touched,
            producer,
            kept,
            folded,
            keep_extremes,
            ..
        } = self;
        touched.clear();
        let mut failure: Option<Failure> = None;
        // Records one tensor of this sample (`failure` set on the first non-finite value). A
        // tensor inside a loop body is recorded at every iteration: its sample extremes and bin
        // counts accumulate until the sample commits.
        let mut record =
            |sg: usize, t: usize, view: TensorView<'_>, failure: &mut Option<Failure>| {
                if failure.is_some() || view.dtype != TensorType::FLOAT32 {
                    return;
                }
                let Some(values) = view.as_f32() else { return };
                if values.is_empty() {
                    return;
                }
                let (lo, hi, bad) = scan(values);
                if let Some(e) = bad {
                    *failure = Some(Failure {
                        value: values[e],
                        name: view.name.to_string(),
                        subgraph: sg,
                        tensor: t,
                        element: e,
                    });
                    return;
                }
                let Some(slot) = slot_of.get_mut(sg).and_then(|s| s.get_mut(t)) else {
                    return;
                };
                if *slot == u32::MAX {
                    *slot = u32::try_from(accs.len()).unwrap_or(u32::MAX - 1);
                    accs.push(TensorAcc::new(sg, t, view.name, *keep_extremes));
                }
                let k = *slot as usize;
                let acc = &mut accs[k];
                if acc.in_sample {
                    acc.s_min = acc.s_min.min(lo);
                    acc.s_max = acc.s_max.max(hi);
                } else {
                    acc.in_sample = true;
                    acc.s_min = lo;
                    acc.s_max = hi;
                    acc.s_alias_min = f32::INFINITY;
                    acc.s_alias_max = f32::NEG_INFINITY;
                    touched.push(k);
                }
                // TF records the input this output overwrote in place again, with these values
                // (subgraph 0: the aliasing is computed for it).
                if sg == 0
                    && let Some(&Some(input)) = inplace.get(t)
                    && let Some(&a) = slot_of[0].get(input)
                    && let Some(alias) = accs.get_mut(a as usize)
                {
                    alias.s_alias_min = alias.s_alias_min.min(lo);
                    alias.s_alias_max = alias.s_alias_max.max(hi);
                }
                accs[k].pending.record(values, lo, hi);
            };
        let mut last = profiling.as_mut().map_or(0.0, |(clock, _)| clock());
        let ran = interp.invoke_nested(&mut |sg: usize, t: usize, view: TensorView<'_>| {
            if let Some((clock, profile)) = profiling.as_mut() {
                let now = clock();
                let op = if sg == 0 {
                    producer.get(t).and_then(Option::as_deref)
                } else {
                    Some("(inside a WHILE / IF subgraph)")
                };
                profile.add_op(op.unwrap_or("(graph input)"), now - last);
                record(sg, t, view, &mut failure);
                last = clock();
                profile.record += last - now;
            } else {
                record(sg, t, view, &mut failure);
            }
        });
        // The states kernels keep (LSTM output and cell states), after the run.
        if ran.is_ok() {
            kept.record(interp, |t, view| record(0, t, view, &mut failure));
        }
        // Folded results (held as constants, or not at all when nothing reads them).
        for &t in folded.iter() {
            if let Some(view) = interp.tensor(TensorId(t)) {
                record(0, t, view, &mut failure);
            }
        }
        if let Err(e) = ran {
            for &k in touched.iter() {
                accs[k].discard();
            }
            return Err(e);
        }
        if let Some(f) = failure {
            for &k in touched.iter() {
                accs[k].discard();
            }
            let inputs: Vec<String> = interp
                .inputs()
                .iter()
                .map(|d| format!("'{}'", d.name))
                .collect();
            let within = if f.subgraph == 0 {
                String::new()
            } else {
                format!(" of subgraph {}", f.subgraph)
            };
            return Err(Error::NonFinite {
                sample,
                value: value_name(f.value).into(),
                place: format!(
                    "tensor {} '{}'{within} (element {}), the first computed tensor that holds \
                     one (input(s) {} are finite)",
                    f.tensor,
                    f.name,
                    f.element,
                    inputs.join(", ")
                ),
            });
        }
        for &k in touched.iter() {
            accs[k].commit();
        }
        self.samples += 1;
        Ok(())
    }

    /// The statistics so far, with ranges chosen by `method`, by tensor index (those inside
    /// WHILE / IF subgraphs in [`CalibrationStats::nested`]).
    pub fn stats(&self, method: Method) -> Result<CalibrationStats> {
        stats_of(self.samples, self.accs.iter().map(|a| &a.state), method)
    }

    /// Makes this calibrator record the slice of the samples that starts at sample
    /// `first_sample` of a calibration split across several calibrators: errors number its
    /// samples from there, and each tensor keeps its per-sample extremes so that its
    /// [`Calibrator::state`] can be merged after the previous slice's
    /// ([`CalibrationState::merge`]). Only before the first sample.
    pub fn for_slice(&mut self, first_sample: usize) -> Result<()> {
        if self.attempts > 0 {
            return Err(Error::Calibration {
                reason: "for_slice comes before the first sample".into(),
            });
        }
        self.attempts = first_sample;
        self.keep_extremes = true;
        Ok(())
    }

    /// Adds the statistics of the samples that came after this calibrator's (the next slice,
    /// recorded by another calibrator after [`Calibrator::for_slice`]): then
    /// [`Calibrator::stats`] is exactly what one calibrator over both slices gives. The last
    /// step of a split calibration: samples added afterwards would count as coming after the
    /// merged ones.
    pub fn merge(&mut self, later: &CalibrationState) -> Result<()> {
        let mut state = self.state();
        state.merge(later)?;
        for slots in &mut self.slot_of {
            slots.iter_mut().for_each(|s| *s = u32::MAX);
        }
        self.accs.clear();
        for t in state.tensors {
            if let Some(slot) = self
                .slot_of
                .get_mut(t.subgraph)
                .and_then(|s| s.get_mut(t.index))
            {
                *slot = u32::try_from(self.accs.len()).unwrap_or(u32::MAX - 1);
                self.accs.push(TensorAcc::from_state(t));
            } else {
                return Err(Error::Calibration {
                    reason: format!(
                        "the merged statistics name tensor {} of subgraph {}, which this model \
                         does not have",
                        t.index, t.subgraph
                    ),
                });
            }
        }
        self.samples = state.samples;
        Ok(())
    }

    /// The statistics so far, mergeable with those of other slices of the samples.
    pub fn state(&self) -> CalibrationState {
        let mut tensors: Vec<_> = self
            .accs
            .iter()
            .filter(|a| a.state.seen > 0)
            .map(|a| a.state.clone())
            .collect();
        crate::sort::stable_sort_by_key(&mut tensors, |t| (t.subgraph, t.index));
        CalibrationState {
            samples: self.samples,
            tensors,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::calibrate::test_models::{add_fill, add_relu, by_name, square_relu};

    #[test]
    fn a_result_folded_at_prepare_time_is_recorded_with_its_constant_value() {
        let m = add_fill();
        let mut cal = Calibrator::new(&m).expect("prepares");
        // The engine folded FILL: no step runs it.
        assert!(cal.interp.step_infos().iter().all(|s| s.op_name != "FILL"));
        for x in [[1.0, -1.0], [3.0, 0.0]] {
            cal.set_input(0, &x).expect("fits");
            cal.add_sample().expect("finite");
        }
        let s = cal.stats(Method::MinMax).expect("stats");
        let names: Vec<&str> = s.tensors.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            ["x", "f", "y"],
            "constants dims and value are not recorded"
        );
        let f = by_name(&s, "f");
        assert_eq!((f.min, f.max), (0.25, 0.25));
        // Every element of every sample is counted, as for a computed tensor.
        assert_eq!(f.histogram.counts.iter().sum::<u64>(), 4);
        let y = by_name(&s, "y");
        assert_eq!((y.min, y.max), (-0.75, 3.25));
    }

    #[test]
    fn global_min_max_over_samples_and_constants_skipped() {
        let mut cal = Calibrator::new(&add_relu([1.0, -1.0, 0.5, 0.0])).expect("prepares");
        for x in [
            [0.0, 1.0, 2.0, 3.0],
            [-4.0, 0.5, 0.0, 9.0],
            [1.0, 1.0, 1.0, 1.0],
        ] {
            cal.set_input(0, &x).expect("fits");
            cal.add_sample().expect("finite");
        }
        let s = cal.stats(Method::MinMax).expect("stats");
        assert_eq!(s.samples, 3);
        let names: Vec<&str> = s.tensors.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["x", "y", "z"], "constant c is not recorded");
        let x = by_name(&s, "x");
        assert_eq!((x.min, x.max), (-4.0, 9.0));
        assert_eq!((x.chosen_min, x.chosen_max), (-4.0, 9.0));
        let y = by_name(&s, "y");
        assert_eq!((y.min, y.max), (-3.0, 9.0));
        let z = by_name(&s, "z");
        assert_eq!((z.min, z.max), (0.0, 9.0));
        assert_eq!(x.histogram.counts.iter().sum::<u64>(), 12);
        assert_eq!(x.method, "minmax");
    }

    #[test]
    fn nan_in_input_names_sample_and_input_and_records_nothing() {
        let mut cal = Calibrator::new(&add_relu([0.0; 4])).expect("prepares");
        cal.set_input(0, &[1.0, 2.0, 3.0, 4.0]).expect("fits");
        cal.add_sample().expect("finite");
        cal.set_input(0, &[1.0, f32::NAN, 3.0, 4.0]).expect("fits");
        let e = cal.add_sample().expect_err("NaN").to_string();
        assert_eq!(e, "calibration sample 1: NaN in input 0 'x' (element 1)");
        assert_eq!(cal.samples(), 1);
        cal.set_input(0, &[f32::NEG_INFINITY, 2.0, 3.0, 4.0])
            .expect("fits");
        let e = cal.add_sample().expect_err("Inf").to_string();
        assert!(
            e.starts_with("calibration sample 2: -Inf in input 0 'x'"),
            "{e}"
        );
        let s = cal.stats(Method::MinMax).expect("stats");
        assert_eq!((by_name(&s, "x").min, by_name(&s, "x").max), (1.0, 4.0));
    }

    #[test]
    fn inf_inside_names_the_first_tensor_and_rolls_back() {
        let mut cal = Calibrator::new(&square_relu()).expect("prepares");
        cal.set_input(0, &[-1e19, 0.0, 0.0, 0.0]).expect("fits");
        cal.add_sample().expect("finite");
        let before = cal.stats(Method::MinMax).expect("stats");
        cal.set_input(0, &[0.0, 0.0, f32::MAX, 0.0]).expect("fits");
        let e = cal.add_sample().expect_err("overflow").to_string();
        assert!(
            e.starts_with("calibration sample 1: +Inf in tensor 1 'y' (element 2)"),
            "{e}"
        );
        assert!(e.contains("'x' are finite"), "{e}");
        // Nothing recorded (a histogram's range may have grown, keeping its counts).
        let after = cal.stats(Method::MinMax).expect("stats");
        assert_eq!(after.samples, 1);
        for (b, a) in before.tensors.iter().zip(&after.tensors) {
            assert_eq!((b.index, b.min, b.max), (a.index, a.min, a.max));
            assert_eq!(b.histogram.total(), a.histogram.total());
        }
        assert_eq!(before.tensors.len(), after.tensors.len());
    }

    #[test]
    fn a_fused_op_that_overflows_records_flt_max_as_litert_computes_it() {
        // ADD with fused NONE clamps to [lowest, max] (LiteRT's CalculateActivationRange), so
        // MAX + MAX is MAX, not +inf: a finite sample.
        let mut cal = Calibrator::new(&add_relu([f32::MAX; 4])).expect("prepares");
        cal.set_input(0, &[0.0, 0.0, f32::MAX, 0.0]).expect("fits");
        cal.add_sample().expect("finite");
        let s = cal.stats(Method::MinMax).expect("stats");
        assert_eq!(by_name(&s, "y").max, f32::MAX);
    }

    #[test]
    fn wrong_size_and_unset_input_are_errors() {
        let mut cal = Calibrator::new(&add_relu([0.0; 4])).expect("prepares");
        let e = cal.set_input(0, &[1.0; 3]).expect_err("size").to_string();
        assert!(e.contains("expected 1×4 FLOAT32"), "{e}");
        assert!(e.contains("got 3 FLOAT32 values"), "{e}");
        let e = cal.add_sample().expect_err("unset").to_string();
        assert_eq!(e, "calibration: sample 0: input 0 'x' was not set");
        assert!(cal.set_input(1, &[1.0; 4]).is_err());
    }

    #[test]
    fn tensors_inside_a_while_loop_are_recorded_at_every_iteration() {
        // while i < 3: x = x * 2, from x = [1, -0.5]: the body's product is [2, -1], [4, -2],
        // [8, -4]; its input sees the first three states, the cond's input all four.
        let m = crate::engine::control_flow_tests::counting_loop(1, 2, 5, 2);
        let mut cal = Calibrator::new(&m).expect("prepares");
        for _ in 0..2 {
            cal.set_input(0, &[0.0]).expect("i (INT32, whole numbers)");
            cal.set_input(1, &[1.0, -0.5]).expect("x");
            cal.add_sample().expect("sample");
        }
        assert!(cal.set_input(0, &[0.5]).is_err(), "0.5 is not a token id");
        let s = cal.stats(Method::MinMax).expect("stats");
        let nested = |sg: usize, t: usize| {
            s.nested
                .iter()
                .find(|x| x.subgraph == sg && x.index == t)
                .unwrap_or_else(|| panic!("subgraph {sg} tensor {t} recorded"))
        };
        let product = nested(2, 5);
        assert_eq!((product.min, product.max), (-4.0, 8.0));
        // Every value of every iteration counted once: 3 iterations × 2 values × 2 samples,
        // across the histogram growing within a sample.
        let h = &product.histogram;
        assert_eq!(h.total(), 12);
        // The counts of earlier iterations moved with the bins: the histogram's mean is the
        // values' mean (7/6) within a bin width.
        let width = (h.hi - h.lo) / h.counts.len() as f64;
        let mean = h
            .counts
            .iter()
            .enumerate()
            .map(|(i, &c)| c as f64 * (h.lo + (i as f64 + 0.5) * width))
            .sum::<f64>()
            / 12.0;
        assert!(
            (mean - 7.0 / 6.0).abs() <= width,
            "mean {mean}, width {width}"
        );
        let body_x = nested(2, 1);
        assert_eq!((body_x.min, body_x.max), (-2.0, 4.0));
        let cond_x = nested(1, 1);
        assert_eq!((cond_x.min, cond_x.max), (-4.0, 8.0));
        // Subgraph 0 keeps its own list: its input and the WHILE's float output.
        assert!(s.tensors.iter().all(|t| t.subgraph == 0));
        assert_eq!(by_name(&s, "x").max, 1.0);
        assert_eq!(by_name(&s, "x_out").min, -4.0);
    }
}
