//! Accuracy on the goldens' held-out labelled test sets (the `[labelled]` table of case.toml,
//! written by make_goldens.py with the accuracies LiteRT's reference kernels give on TF's
//! models).
//!
//! For each classifier case: our float engine reproduces TF's float accuracy; TF's int8 model
//! run by our integer engine reproduces TF's int8 accuracy (the engine is bit-exact with
//! LiteRT); and the int8 model *we* write (float I/O, our calibration of the case's samples)
//! is within 0.5 accuracy points of float.

use std::path::Path;

use zeropoint::engine::Interpreter;
use zeropoint::graph::Model;
use zeropoint::quant::calibrate::{Calibrator, Method};
use zeropoint::quant::{IoType, Mode, QuantizeOptions, Ranges, quantize};
use zeropoint::tflite;
use zeropoint_tests::{NpyData, load_npy, selected_cases};

/// Largest accuracy drop (points) allowed for our int8 model against float. (case.toml rounds
/// accuracies to 4 decimals, hence 5e-4 when comparing with them.)
const MAX_DROP_POINTS: f64 = 0.5;

struct Labelled {
    x: Vec<Vec<f32>>,
    y: Vec<i32>,
    output: usize,
    float: f64,
    int8_floatio: f64,
}

fn labelled(dir: &Path) -> Option<Labelled> {
    let text = std::fs::read_to_string(dir.join("case.toml")).expect("case.toml");
    let v: toml::Table = toml::from_str(&text).expect("case.toml parses");
    let l = v
        .get("labelled")?
        .as_table()
        .expect("[labelled] is a table");
    let file = |k: &str| dir.join(l[k].as_str().expect("file name"));
    let scale = l["x_scale"].as_float().expect("x_scale");
    let xa = load_npy(&file("x"));
    let per = xa.shape[1..].iter().product::<usize>();
    let flat: Vec<f32> = match xa.data {
        NpyData::U8(v) => v.iter().map(|&p| (f64::from(p) * scale) as f32).collect(),
        NpyData::F32(v) => v.iter().map(|&p| (f64::from(p) * scale) as f32).collect(),
        _ => panic!("{}: test_x must be uint8 or float32", dir.display()),
    };
    let y = match load_npy(&file("y")).data {
        NpyData::I32(v) => v,
        _ => panic!("test_y must be int32"),
    };
    let acc = |k: &str| l[k].as_float().expect("accuracy");
    Some(Labelled {
        x: flat.chunks(per).map(<[f32]>::to_vec).collect(),
        y,
        output: usize::try_from(l["output"].as_integer().expect("output")).expect("index"),
        float: acc("accuracy_float"),
        int8_floatio: acc("accuracy_int8_floatio"),
    })
}

/// Accuracy in percent of `model` (float input, float output `l.output`) on the set.
fn accuracy(model: &Model, l: &Labelled) -> f64 {
    let mut it = Interpreter::new(model).expect("prepares");
    let mut right = 0usize;
    for (x, &y) in l.x.iter().zip(&l.y) {
        it.set_input_f32(0, x).expect("input");
        it.invoke().expect("the model runs");
        let out = it.output(l.output).expect("output");
        let logits = out.as_f32().expect("float output");
        let best = logits
            .iter()
            .enumerate()
            .fold(
                (0, f32::NEG_INFINITY),
                |b, (i, &v)| if v > b.1 { (i, v) } else { b },
            )
            .0;
        right += usize::from(i32::try_from(best).ok() == Some(y));
    }
    right as f64 * 100.0 / l.y.len() as f64
}

fn read(path: &Path) -> Model {
    tflite::read(&std::fs::read(path).expect("model file")).expect("model reads")
}

#[test]
fn int8_within_half_a_point_of_float_on_labelled_sets() {
    let mut checked = 0;
    let mut failures = Vec::new();
    let selection = selected_cases("accuracy");
    let panics = selection.each(|case| {
        let Some(l) = labelled(&case.dir) else {
            return;
        };
        let float = read(&case.dir.join("model_float.tflite"));
        let ours_float = accuracy(&float, &l);
        let tf_int8 = accuracy(&read(&case.dir.join("model_int8_floatio.tflite")), &l);

        // Our int8 model from our own calibration of the case's samples.
        let mut cal = Calibrator::new(&float).expect("calibrator");
        let calib = load_npy(&case.calibration[0]);
        let NpyData::F32(cv) = &calib.data else {
            panic!("calibration is float32")
        };
        let per = calib.shape[1..].iter().product::<usize>();
        for s in cv.chunks(per) {
            cal.set_input(0, s).expect("sample");
            cal.add_sample().expect("calibrates");
        }
        let stats = cal.stats(Method::MinMax).expect("stats");
        let ranges = Ranges::from_calibration(&float, &stats).expect("ranges");
        let opts = QuantizeOptions {
            mode: Mode::Int8,
            io: IoType::Float,
            per_tensor: false,
            float_ops: Vec::new(),
            int16_ops: Vec::new(),
            constants: Vec::new(),
        };
        let (q, _) = quantize(&float, &ranges, &opts).expect("quantizes");
        let q = tflite::read(&tflite::write(&q).expect("writes")).expect("reads back");
        let ours_int8 = accuracy(&q, &l);
        println!(
            "{:14} {} samples: float {:.2} % (LiteRT {:.2}), TF int8 {:.2} % (LiteRT {:.2}), \
             our int8 {:.2} % (int8 − float {:+.2} points)",
            case.name,
            l.y.len(),
            ours_float,
            l.float,
            tf_int8,
            l.int8_floatio,
            ours_int8,
            ours_int8 - ours_float
        );
        // Written as the conditions that hold, so that a NaN fails as before.
        let float_ok = (ours_float - l.float).abs() < 5e-4;
        let tf_int8_ok = (tf_int8 - l.int8_floatio).abs() < 5e-4;
        let drop_ok = ours_float - ours_int8 <= MAX_DROP_POINTS + 1e-9;
        if !float_ok {
            failures.push(format!(
                "{}: float accuracy {ours_float} vs LiteRT {}",
                case.name, l.float
            ));
        }
        if !tf_int8_ok {
            failures.push(format!(
                "{}: TF's int8 model in our engine {tf_int8} vs LiteRT {}",
                case.name, l.int8_floatio
            ));
        }
        if !drop_ok {
            failures.push(format!(
                "{}: our int8 model loses {:.2} points",
                case.name,
                ours_float - ours_int8
            ));
        }
        checked += 1;
    });
    failures.extend(panics);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if selection.expect_checked(checked, "labelled test set") && selection.is_complete() {
        assert!(checked >= 2, "labelled cases checked: {checked}");
    }
}
