//! "Fix the worst layers": each operator's sensitivity, measured one at a time, for a person to
//! act on step by step (the page's ranking), where `--target-sqnr` ([`super::mixed`]) acts on it
//! by itself.
//!
//! An operator's *fix* is the cheapest precision above int8 it can take: int16 activations
//! (16x8, `--int16-ops`) where LiteRT has a 16x8 kernel for it and the model is int8, otherwise
//! keeping it float (`--float-ops`). Its *score* is the output SQNR of the model quantized with
//! the settings given plus that one fix (TF-compatible ranges, nothing else changed), measured
//! by [`Scorer`] against the float model; the ranking is the candidates by score, best first.
//! Accepting a step is adding that operator to `--int16-ops` / `--float-ops`; the model written
//! is an ordinary one the same passes make, so it loads in stock LiteRT.

use serde::{Deserialize, Serialize};

use super::score::Scorer;
use crate::error::{Error, Result};
use crate::graph::{Model, TensorType};
use crate::ops::registry::properties;
use crate::quant::passes::{Mode, QuantizeOptions, Ranges, quantize};

/// The precision an operator is moved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
#[serde(rename_all = "lowercase")]
pub enum Fix {
    /// int16 activations, int8 weights (`--int16-ops`).
    Int16,
    /// Kept float (`--float-ops`).
    Float,
}

impl Fix {
    /// Parses `int16` / `float`.
    ///
    /// # Errors
    /// [`Error::Quantization`] for anything else.
    pub fn parse(s: &str) -> Result<Fix> {
        match s {
            "int16" => Ok(Fix::Int16),
            "float" => Ok(Fix::Float),
            _ => Err(Error::Quantization {
                what: format!("fix '{s}'"),
                reason: "an operator is moved to int16 or float".into(),
            }),
        }
    }
}

/// An operator that can be moved above int8.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "wasm", derive(tsify::Tsify))]
pub struct LayerCandidate {
    /// Operator index in subgraph 0 of the float model.
    pub index: usize,
    /// `OP #i (output name)`.
    pub label: String,
    /// What moving it means.
    pub fix: Fix,
}

/// The operators of subgraph 0 with a float output that the options do not already keep float
/// or int16, each with its fix: int16 for an int8 model where the op table has a 16x8 kernel,
/// float otherwise. Empty for modes without integer activations.
pub fn candidates(model: &Model, opts: &QuantizeOptions) -> Vec<LayerCandidate> {
    if !matches!(opts.mode, Mode::Int8 | Mode::Int16x8) {
        return Vec::new();
    }
    let Some(sg) = model.subgraphs.first() else {
        return Vec::new();
    };
    let named = |list: &[String], i: usize| list.iter().any(|f| f.trim() == i.to_string());
    (0..sg.operators.len())
        .filter(|&i| !named(&opts.float_ops, i) && !named(&opts.int16_ops, i))
        .filter_map(|i| {
            let op = &sg.operators[i];
            let float_out = op
                .output(0)
                .and_then(|o| sg.tensors.get(o))
                .is_some_and(|t| t.dtype == TensorType::FLOAT32);
            if !float_out {
                return None;
            }
            let int16 =
                opts.mode == Mode::Int8 && properties(op.code.op()).is_some_and(|p| p.int16);
            Some(LayerCandidate {
                index: i,
                label: label(model, i),
                fix: if int16 { Fix::Int16 } else { Fix::Float },
            })
        })
        .collect()
}

/// `OP #i (output name)` of operator `i` of subgraph 0.
pub(super) fn label(model: &Model, i: usize) -> String {
    let op = &model.subgraphs[0].operators[i];
    let name = op
        .output(0)
        .and_then(|o| model.subgraphs[0].tensors.get(o))
        .map_or("", |t| t.name.as_str());
    format!("{} #{i} ({name})", op.code.name())
}

/// `opts` with operator `index` moved by `fix`.
pub fn with_fix(opts: &QuantizeOptions, index: usize, fix: Fix) -> QuantizeOptions {
    let mut o = opts.clone();
    match fix {
        Fix::Int16 => o.int16_ops.push(index.to_string()),
        Fix::Float => o.float_ops.push(index.to_string()),
    }
    o
}

/// Measures models of one float model and its ranges against the float outputs, one fix at a
/// time.
pub struct Ranker {
    float: Model,
    ranges: Ranges,
    opts: QuantizeOptions,
    scorer: Scorer,
}

impl Ranker {
    /// A ranker for `float` quantized with `ranges` and `opts`, scored on `samples`
    /// (`[sample][input]`, at the model's stored shapes).
    ///
    /// # Errors
    /// [`Error::Quantization`] without samples, or what the engine refuses running `float`.
    pub fn new(
        float: Model,
        ranges: Ranges,
        opts: QuantizeOptions,
        samples: &[Vec<Vec<f32>>],
    ) -> Result<Ranker> {
        let scorer = Scorer::new(&float, samples, &Default::default(), 1)?;
        Ok(Ranker {
            float,
            ranges,
            opts,
            scorer,
        })
    }

    /// The candidates of [`candidates`] for this model and options.
    pub fn candidates(&self) -> Vec<LayerCandidate> {
        candidates(&self.float, &self.opts)
    }

    /// Samples scored on.
    pub fn samples(&self) -> usize {
        self.scorer.samples()
    }

    /// Output SQNR in dB of the model with the options as given (`f64::INFINITY` when exact).
    ///
    /// # Errors
    /// What the quantizer or the engine refuse.
    pub fn base(&mut self) -> Result<f64> {
        let (q, _) = quantize(&self.float, &self.ranges, &self.opts)?;
        Ok(self.scorer.score(&q)?.total)
    }

    /// Output SQNR in dB with operator `index` moved by `fix` on top of the options.
    ///
    /// # Errors
    /// What the quantizer refuses for that choice (e.g. a 16x8 operator whose neighbours it
    /// cannot join), or what the engine refuses.
    pub fn score(&mut self, index: usize, fix: Fix) -> Result<f64> {
        let (q, _) = quantize(&self.float, &self.ranges, &with_fix(&self.opts, index, fix))?;
        Ok(self.scorer.score(&q)?.total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::quant::auto::tests::{add_relu, calibrate, signed_samples};

    fn samples() -> Vec<Vec<Vec<f32>>> {
        signed_samples(8)
    }

    /// Every candidate scored, best first (the page's loop, `www/src/quantize/beyond.ts`,
    /// does the same; moves the quantizer refuses are left out).
    fn rank(r: &mut Ranker) -> Result<Vec<(LayerCandidate, f64)>> {
        let mut ranked = Vec::new();
        for c in r.candidates() {
            match r.score(c.index, c.fix) {
                Ok(db) => ranked.push((c, db)),
                Err(Error::Quantization { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        crate::sort::stable_sort_by(&mut ranked, |a, b| b.1.total_cmp(&a.1));
        Ok(ranked)
    }

    fn ranker(opts: QuantizeOptions) -> Ranker {
        let model = add_relu();
        let s = samples();
        let ranges = Ranges::from_calibration(&model, &calibrate(&model, &s)).expect("ranges");
        Ranker::new(model, ranges, opts, &s).expect("ranker")
    }

    #[test]
    fn int8_candidates_take_int16_where_litert_has_a_16x8_kernel() {
        let r = ranker(QuantizeOptions::default());
        let got: Vec<(usize, Fix)> = r.candidates().iter().map(|c| (c.index, c.fix)).collect();
        // ADD and RELU both have 16x8 kernels in LiteRT.
        assert_eq!(got, vec![(0, Fix::Int16), (1, Fix::Int16)]);
        assert_eq!(r.candidates()[0].label, "ADD #0 (y)");
        // An operator already moved is no candidate; int16x8 models can only keep float.
        let moved = ranker(QuantizeOptions {
            int16_ops: vec!["1".into()],
            ..QuantizeOptions::default()
        });
        assert_eq!(moved.candidates().len(), 1);
        let int16x8 = ranker(QuantizeOptions {
            mode: Mode::Int16x8,
            ..QuantizeOptions::default()
        });
        assert!(int16x8.candidates().iter().all(|c| c.fix == Fix::Float));
        let dynamic = ranker(QuantizeOptions {
            mode: Mode::Dynamic,
            ..QuantizeOptions::default()
        });
        assert!(dynamic.candidates().is_empty());
    }

    #[test]
    fn the_ranking_is_by_measured_sqnr_and_a_fix_gains() {
        let mut r = ranker(QuantizeOptions::default());
        let base = r.base().expect("base");
        assert!(base.is_finite() && base > 20.0, "int8 base {base}");
        let ranked = rank(&mut r).expect("rank");
        assert!(!ranked.is_empty());
        assert!(ranked.windows(2).all(|w| w[0].1 >= w[1].1), "{ranked:?}");
        // Each step's score is the base with that one option added.
        let mut step = ranker(with_fix(&QuantizeOptions::default(), 1, Fix::Int16));
        let one = ranked
            .iter()
            .find(|(c, _)| c.index == 1)
            .expect("RELU ranked");
        assert_eq!(step.base().expect("step").to_bits(), one.1.to_bits());
        // Both operators int16: the whole path has 256 times the levels of int8.
        let both = with_fix(
            &with_fix(&QuantizeOptions::default(), 0, Fix::Int16),
            1,
            Fix::Int16,
        );
        let all = ranker(both).base().expect("both");
        assert!(all > base + 20.0, "{all} vs {base}");
        assert!(Fix::parse("int4").is_err());
    }

    #[test]
    fn progress_counts_every_candidate_scored_and_stops_with_the_call() {
        use crate::quant::auto::score::with_progress;
        use std::cell::Cell;
        use std::rc::Rc;
        let count = Rc::new(Cell::new(0));
        let seen = Rc::clone(&count);
        let mut r = ranker(QuantizeOptions::default());
        let ranked =
            with_progress(move || seen.set(seen.get() + 1), || rank(&mut r)).expect("rank");
        assert_eq!(count.get(), ranked.len());
        // Outside the call the hook is gone.
        r.base().expect("base");
        assert_eq!(count.get(), ranked.len());
    }
}
