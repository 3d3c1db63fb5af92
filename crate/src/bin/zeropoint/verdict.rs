//! The verdict on a quantization, printed by `zeropoint compare` and `zeropoint quantize
//! --report`: the worst model output's SQNR below [`RUINED_DB`] is "ruined", below [`POOR_DB`]
//! "poor"; then the first layer (execution order) whose SQNR falls below [`POOR_DB`] and the
//! worst layers. The page says the same with the same thresholds (www/src/compare/verdict.ts).

use zeropoint::graph::Subgraph;

/// Worst output SQNR below this (dB): the quantization ruined the model.
pub const RUINED_DB: f64 = 10.0;
/// Worst output SQNR below this (dB): poor; also where a layer counts as dropped.
pub const POOR_DB: f64 = 20.0;
/// Worst layers named.
const WORST_SHOWN: usize = 3;

/// One layer's SQNR, in execution order.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    /// "CONV_2D #12".
    pub label: String,
    /// SQNR in dB; infinity when identical.
    pub db: f64,
    /// Whether it is a model output.
    pub output: bool,
}

/// The layers of `sg` whose output tensor (index `tensor`) has the SQNR `db`, in the order given;
/// a tensor no operator makes is an input.
pub fn layers(sg: &Subgraph, rows: impl IntoIterator<Item = (usize, f64)>) -> Vec<Layer> {
    let producer = |t: usize| {
        sg.operators.iter().enumerate().find(|(_, op)| {
            op.outputs
                .iter()
                .any(|&o| usize::try_from(o).is_ok_and(|o| o == t))
        })
    };
    rows.into_iter()
        .map(|(tensor, db)| Layer {
            label: producer(tensor).map_or_else(
                || format!("input tensor #{tensor}"),
                |(i, op)| format!("{} #{i}", op.code.name()),
            ),
            db,
            output: sg
                .outputs
                .iter()
                .any(|&o| usize::try_from(o).is_ok_and(|o| o == tensor)),
        })
        .collect()
}

fn db_text(db: f64) -> String {
    if db == f64::INFINITY {
        "identical".into()
    } else {
        format!("{db:.1} dB")
    }
}

/// NaN sorts as the worst (a NaN SQNR means the quantized output is not a number).
fn key(l: &Layer) -> f64 {
    if l.db.is_nan() {
        f64::NEG_INFINITY
    } else {
        l.db
    }
}

/// The verdict's lines, or `None` when no layer is a model output.
pub fn verdict(layers: &[Layer]) -> Option<Vec<String>> {
    let worst_out = layers
        .iter()
        .filter(|l| l.output)
        .min_by(|a, b| key(a).total_cmp(&key(b)))?;
    let db = key(worst_out);
    if db >= POOR_DB {
        return Some(vec![format!(
            "worst output SQNR {} ({}): at least {POOR_DB} dB",
            db_text(worst_out.db),
            worst_out.label
        )]);
    }
    let mut lines = vec![if db < RUINED_DB {
        format!(
            "QUANTIZATION RUINED: the worst output SQNR is {} ({}), below {RUINED_DB} dB: the \
             error is about as large as the signal",
            db_text(worst_out.db),
            worst_out.label
        )
    } else {
        format!(
            "POOR QUANTIZATION: the worst output SQNR is {} ({}), below {POOR_DB} dB",
            db_text(worst_out.db),
            worst_out.label
        )
    }];
    if let Some(first) = layers.iter().find(|l| key(l) < POOR_DB) {
        lines.push(format!(
            "SQNR first falls below {POOR_DB} dB at {} ({})",
            first.label,
            db_text(first.db)
        ));
    }
    let mut worst: Vec<&Layer> = layers.iter().collect();
    worst.sort_by(|a, b| key(a).total_cmp(&key(b)));
    lines.push(format!(
        "worst layers: {}",
        worst
            .iter()
            .take(WORST_SHOWN)
            .map(|l| format!("{} {}", l.label, db_text(l.db)))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    lines.push(
        "if the ranges came from random data (zeropoint calibrate --random), calibrate with \
         real samples: ranges from random inputs rarely resemble real ones"
            .into(),
    );
    Some(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(label: &str, db: f64, output: bool) -> Layer {
        Layer {
            label: label.into(),
            db,
            output,
        }
    }

    #[test]
    fn ruined_names_the_first_and_worst_layers() {
        let l = [
            layer("input tensor #0", 40.0, false),
            layer("CONV_2D #0", 31.0, false),
            layer("CONV_2D #1", 18.5, false),
            layer("ADD #2", 6.1, false),
            layer("RESHAPE #3", f64::INFINITY, false),
            layer("FULLY_CONNECTED #4", 3.9, true),
        ];
        let v = verdict(&l).expect("an output");
        assert_eq!(
            v[0],
            "QUANTIZATION RUINED: the worst output SQNR is 3.9 dB (FULLY_CONNECTED #4), below 10 \
             dB: the error is about as large as the signal"
        );
        assert_eq!(v[1], "SQNR first falls below 20 dB at CONV_2D #1 (18.5 dB)");
        assert_eq!(
            v[2],
            "worst layers: FULLY_CONNECTED #4 3.9 dB, ADD #2 6.1 dB, CONV_2D #1 18.5 dB"
        );
        assert!(v[3].contains("random"));
    }

    #[test]
    fn thresholds_poor_ok_nan_and_no_output() {
        let poor = verdict(&[layer("a", 25.0, false), layer("out", 10.0, true)]).expect("output");
        assert!(poor[0].starts_with("POOR QUANTIZATION: the worst output SQNR is 10.0 dB (out)"));
        let ok = verdict(&[layer("a", 3.0, false), layer("out", 20.0, true)]).expect("output");
        assert_eq!(ok, vec!["worst output SQNR 20.0 dB (out): at least 20 dB"]);
        let same = verdict(&[layer("out", f64::INFINITY, true)]).expect("output");
        assert_eq!(
            same,
            vec!["worst output SQNR identical (out): at least 20 dB"]
        );
        let nan = verdict(&[layer("out", f64::NAN, true)]).expect("output");
        assert!(nan[0].starts_with("QUANTIZATION RUINED"));
        assert_eq!(verdict(&[layer("a", 1.0, false)]), None);
    }
}
