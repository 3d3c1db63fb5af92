//! The small shape-subgraph kernels Keras exports use: PACK (stack along a new axis), CAST
//! (element type conversion) and RANGE. They mirror LiteRT's `reference_ops::Pack`, the
//! `static_cast` loop of `kernels/cast.cc` and `kernels/range.cc`; none of them does arithmetic
//! on quantized values (PACK moves raw elements).

/// PACK: `n` tensors of one shape (input `k` is `input(k)`) stacked along a new axis. `outer`
/// is the product of the dims before the axis, `inner` the product of the dims from the axis on
/// (in elements); every input holds `outer * inner` elements and the output
/// `outer * n * inner`. Mirrors LiteRT's `reference_ops::Pack` (copy order: for each outer
/// index, each input's block). The inputs come through a function so that callers need not
/// collect them (kernels do not allocate).
pub fn pack<'a, T: Copy + 'a>(
    outer: usize,
    inner: usize,
    n: usize,
    input: impl Fn(usize) -> &'a [T],
    output: &mut [T],
) {
    for o in 0..outer {
        for k in 0..n {
            let dst = (o * n + k) * inner;
            output[dst..dst + inner].copy_from_slice(&input(k)[o * inner..(o + 1) * inner]);
        }
    }
}

/// The element types CAST converts between.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CastType {
    /// `f32`.
    F32,
    /// `i64`.
    I64,
    /// `i32`.
    I32,
    /// `i16`.
    I16,
    /// `i8`.
    I8,
    /// `u8`.
    U8,
    /// `bool` stored as one byte (0 or 1).
    Bool,
}

/// One element on its way through CAST: an integer (integers and bools) or a float.
#[derive(Debug, Clone, Copy)]
enum Value {
    Int(i64),
    Float(f32),
}

impl CastType {
    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            CastType::F32 | CastType::I32 => 4,
            CastType::I64 => 8,
            CastType::I16 => 2,
            CastType::I8 | CastType::U8 | CastType::Bool => 1,
        }
    }

    fn read(self, b: &[u8]) -> Value {
        match self {
            CastType::F32 => Value::Float(f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            CastType::I32 => Value::Int(i64::from(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))),
            CastType::I64 => Value::Int(i64::from_le_bytes([
                b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
            ])),
            CastType::I16 => Value::Int(i64::from(i16::from_le_bytes([b[0], b[1]]))),
            CastType::I8 => Value::Int(i64::from(b[0] as i8)),
            CastType::U8 => Value::Int(i64::from(b[0])),
            CastType::Bool => Value::Int(i64::from(b[0] != 0)),
        }
    }

    fn write(self, v: Value, out: &mut [u8]) {
        match self {
            CastType::F32 => {
                let f = match v {
                    Value::Float(f) => f,
                    Value::Int(i) => i as f32,
                };
                out.copy_from_slice(&f.to_le_bytes());
            }
            CastType::Bool => {
                out[0] = u8::from(match v {
                    Value::Float(f) => f != 0.0,
                    Value::Int(i) => i != 0,
                });
            }
            int => {
                // A float saturates into the target's range after truncation toward zero, NaN
                // to the largest value (LiteRT 2.3's CAST, measured for every float → integer
                // pair it has); an integer wraps like every C++ integer narrowing.
                let i = match v {
                    Value::Float(f) => {
                        let (lo, hi) = int.int_range();
                        if f.is_nan() {
                            hi
                        } else {
                            (f as i64).clamp(lo, hi)
                        }
                    }
                    Value::Int(i) => i,
                };
                match int {
                    CastType::I64 => out.copy_from_slice(&i.to_le_bytes()),
                    CastType::I32 => out.copy_from_slice(&(i as i32).to_le_bytes()),
                    CastType::I16 => out.copy_from_slice(&(i as i16).to_le_bytes()),
                    CastType::I8 => out[0] = i as i8 as u8,
                    _ => out[0] = i as u8,
                }
            }
        }
    }

    /// The range of an integer type (`(0, 0)` for the float and bool types, never asked).
    fn int_range(self) -> (i64, i64) {
        match self {
            CastType::I64 => (i64::MIN, i64::MAX),
            CastType::I32 => (i64::from(i32::MIN), i64::from(i32::MAX)),
            CastType::I16 => (i64::from(i16::MIN), i64::from(i16::MAX)),
            CastType::I8 => (i64::from(i8::MIN), i64::from(i8::MAX)),
            CastType::U8 => (0, i64::from(u8::MAX)),
            CastType::F32 | CastType::Bool => (0, 0),
        }
    }
}

/// CAST: converts every element of `input` (type `from`) to `to`, as LiteRT 2.3's `cast.cc` does
/// element by element: integers wrap when narrowed (`static_cast`), floats truncate toward zero
/// and saturate to the integer type's range (NaN to its largest value), anything non-zero (NaN
/// too) becomes `true`, `true`/`false` become 1/0. Lengths are whole elements.
pub fn cast(from: CastType, to: CastType, input: &[u8], output: &mut [u8]) {
    for (i, o) in input
        .chunks_exact(from.size())
        .zip(output.chunks_exact_mut(to.size()))
    {
        to.write(from.read(i), o);
    }
}

/// RANGE: `start`, `start + delta`, … by repeated addition, as LiteRT's `range.cc`
/// `CalculateRange` does (so float values accumulate rounding exactly like it). The caller sizes
/// `output` so that every value lies between `start` and the limit (no overflow).
pub fn range<T: Copy + std::ops::AddAssign>(start: T, delta: T, output: &mut [T]) {
    let Some((first, rest)) = output.split_first_mut() else {
        return;
    };
    *first = start;
    let mut v = start;
    for o in rest {
        v += delta;
        *o = v;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_interleaves_blocks() {
        let a = [1, 2, 3, 4];
        let b = [5, 6, 7, 8];
        let mut out = [0; 8];
        // Shape [2, 2] stacked on axis 1: [2, 2, 2].
        let inputs: [&[i32]; 2] = [&a, &b];
        pack(2, 2, 2, |k| inputs[k], &mut out);
        assert_eq!(out, [1, 2, 5, 6, 3, 4, 7, 8]);
        pack(1, 4, 2, |k| inputs[k], &mut out);
        assert_eq!(out, [1, 2, 3, 4, 5, 6, 7, 8]);
    }

    #[test]
    fn cast_truncates_wraps_and_tests_non_zero() {
        let input: Vec<u8> = [-1.7f32, 2.9, 300.0, f32::NAN]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        let mut out = [0u8; 16];
        cast(CastType::F32, CastType::I32, &input, &mut out);
        let got: Vec<i32> = bytemuck::cast_slice::<u8, i32>(&out).to_vec();
        // LiteRT 2.3 (BUILTIN_REF): truncation, NaN to the largest value (op_cast_edges golden).
        assert_eq!(got, [-1, 2, 300, i32::MAX]);
        let mut small = [0u8; 4];
        cast(CastType::F32, CastType::I8, &input, &mut small);
        assert_eq!(small.map(|b| b as i8), [-1, 2, 127, 127]);
        cast(CastType::F32, CastType::U8, &input, &mut small);
        assert_eq!(small, [0, 2, 255, 255]);
        let wide: Vec<u8> = [3e9f32, -3e9, f32::NEG_INFINITY, 1e20]
            .iter()
            .flat_map(|f| f.to_le_bytes())
            .collect();
        cast(CastType::F32, CastType::I32, &wide, &mut out);
        let got: Vec<i32> = bytemuck::cast_slice::<u8, i32>(&out).to_vec();
        assert_eq!(got, [i32::MAX, i32::MIN, i32::MIN, i32::MAX]);
        let mut long = [0u8; 32];
        cast(CastType::F32, CastType::I64, &wide, &mut long);
        let got: Vec<i64> = bytemuck::cast_slice::<u8, i64>(&long).to_vec();
        assert_eq!(got, [3_000_000_000, -3_000_000_000, i64::MIN, i64::MAX]);
        cast(CastType::F32, CastType::Bool, &input, &mut small);
        assert_eq!(small, [1, 1, 1, 1]);
        let ints: Vec<u8> = [0i32, -3].iter().flat_map(|i| i.to_le_bytes()).collect();
        let mut f = [0u8; 8];
        cast(CastType::I32, CastType::F32, &ints, &mut f);
        assert_eq!(bytemuck::cast_slice::<u8, f32>(&f), [0.0, -3.0]);
    }

    #[test]
    fn range_accumulates() {
        let mut out = [0i32; 4];
        range(5, -2, &mut out);
        assert_eq!(out, [5, 3, 1, -1]);
        let mut f = [0f32; 3];
        range(0.1, 0.2, &mut f);
        assert_eq!(f, [0.1, 0.1 + 0.2, 0.1 + 0.2 + 0.2]);
    }
}
