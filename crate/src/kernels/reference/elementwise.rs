//! Binary elementwise float ops with NumPy broadcasting: ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM,
//! SQUARED_DIFFERENCE (and PRELU, which reuses the broadcast walk).

use super::{ActivationRange, MAX_RANK};

/// How two shapes broadcast to an output shape: the output dims and, per output dim, each
/// operand's element stride (0 along broadcast dims). Ranks are aligned at the right, as NumPy
/// and LiteRT do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Broadcast {
    rank: usize,
    dims: [usize; MAX_RANK],
    a_strides: [usize; MAX_RANK],
    b_strides: [usize; MAX_RANK],
    /// Both operands have exactly the output's element count (no broadcasting needed).
    same: bool,
}

impl Broadcast {
    /// The broadcast of shapes `a` and `b`, or `None` when a pair of dims is neither equal nor 1,
    /// or the rank exceeds [`MAX_RANK`].
    pub fn new(a: &[usize], b: &[usize]) -> Option<Self> {
        let rank = a.len().max(b.len());
        if rank > MAX_RANK {
            return None;
        }
        let mut dims = [1usize; MAX_RANK];
        let dim_at = |s: &[usize], i: usize| -> usize {
            // i counts from the left of the output; shorter shapes are padded with 1 on the left.
            let pad = rank - s.len();
            if i < pad { 1 } else { s[i - pad] }
        };
        for (i, d) in dims.iter_mut().enumerate().take(rank) {
            let (da, db) = (dim_at(a, i), dim_at(b, i));
            *d = match (da, db) {
                _ if da == db => da,
                (1, _) => db,
                (_, 1) => da,
                _ => return None,
            };
        }
        let strides = |s: &[usize]| -> [usize; MAX_RANK] {
            let mut out = [0usize; MAX_RANK];
            let mut acc = 1usize;
            for i in (0..rank).rev() {
                let d = dim_at(s, i);
                out[i] = if d == 1 { 0 } else { acc };
                acc = acc.saturating_mul(d);
            }
            out
        };
        let same = (0..rank).all(|i| dim_at(a, i) == dims[i] && dim_at(b, i) == dims[i]);
        Some(Self {
            rank,
            dims,
            a_strides: strides(a),
            b_strides: strides(b),
            same,
        })
    }

    /// The output shape.
    pub fn dims(&self) -> &[usize] {
        &self.dims[..self.rank]
    }

    /// Calls `f(out_index, a_index, b_index)` for every output element in row-major order.
    #[inline]
    fn walk(&self, mut f: impl FnMut(usize, usize, usize)) {
        if self.same {
            let n: usize = self.dims().iter().product();
            for i in 0..n {
                f(i, i, i);
            }
            return;
        }
        let dims = self.dims();
        let n: usize = dims.iter().product();
        if n == 0 {
            return;
        }
        let mut idx = [0usize; MAX_RANK];
        let mut out = 0usize;
        loop {
            let mut ai = 0;
            let mut bi = 0;
            for (k, &x) in idx[..self.rank].iter().enumerate() {
                ai += x * self.a_strides[k];
                bi += x * self.b_strides[k];
            }
            f(out, ai, bi);
            out += 1;
            if !super::next_index(dims, &mut idx[..self.rank]) {
                break;
            }
        }
    }
}

/// Which binary operation an elementwise kernel applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + b`
    Add,
    /// `a - b`
    Sub,
    /// `a * b`
    Mul,
    /// `a / b`
    Div,
    /// `a > b ? a : b` (LiteRT's `MaximumOp`).
    Maximum,
    /// `a < b ? a : b` (LiteRT's `MinimumOp`).
    Minimum,
    /// `(a - b)²`
    SquaredDifference,
}

impl BinaryOp {
    /// Applies the operation to one pair.
    #[inline(always)]
    pub fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            BinaryOp::Add => a + b,
            BinaryOp::Sub => a - b,
            BinaryOp::Mul => a * b,
            BinaryOp::Div => a / b,
            BinaryOp::Maximum => {
                if a > b {
                    a
                } else {
                    b
                }
            }
            BinaryOp::Minimum => {
                if a < b {
                    a
                } else {
                    b
                }
            }
            BinaryOp::SquaredDifference => {
                let d = a - b;
                d * d
            }
        }
    }
}

/// ADD / SUB / MUL / DIV / MAXIMUM / MINIMUM / SQUARED_DIFFERENCE. Mirrors LiteRT's
/// `reference_ops::BroadcastAdd6DSlow` family (float): one operation per output element, then the
/// fused activation clamp (identity for ops without one).
pub fn binary(
    op: BinaryOp,
    shape: &Broadcast,
    act: ActivationRange,
    a: &[f32],
    b: &[f32],
    output: &mut [f32],
) {
    shape.walk(|o, ai, bi| output[o] = act.apply(op.apply(a[ai], b[bi])));
}

/// PRELU. Mirrors LiteRT `reference_ops::BroadcastPrelu4DSlow` (float):
/// `x >= 0 ? x : x * alpha`, with `alpha` broadcast against `x`.
pub fn prelu(shape: &Broadcast, input: &[f32], alpha: &[f32], output: &mut [f32]) {
    shape.walk(|o, xi, ai| {
        let x = input[xi];
        output[o] = if x >= 0.0 { x } else { x * alpha[ai] };
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broadcast_shapes_follow_numpy() {
        let b = Broadcast::new(&[2, 1, 3], &[4, 1]).expect("compatible");
        assert_eq!(b.dims(), &[2, 4, 3]);
        assert!(Broadcast::new(&[2, 3], &[4, 3]).is_none());
        assert_eq!(Broadcast::new(&[], &[5]).expect("scalar").dims(), &[5]);
        assert!(Broadcast::new(&[1; 9], &[1]).is_none());
    }

    #[test]
    fn add_same_shape_with_relu6() {
        let s = Broadcast::new(&[4], &[4]).expect("same");
        let mut out = [0.0; 4];
        binary(
            BinaryOp::Add,
            &s,
            ActivationRange::RELU6,
            &[1.0, 2.0, 3.0, -9.0],
            &[1.0, 5.0, 0.5, 1.0],
            &mut out,
        );
        assert_eq!(out, [2.0, 6.0, 3.5, 0.0]);
    }

    #[test]
    fn sub_broadcasts_row_against_column() {
        // a: [2, 1], b: [1, 3] → [2, 3]
        let s = Broadcast::new(&[2, 1], &[1, 3]).expect("compatible");
        let mut out = [0.0; 6];
        binary(
            BinaryOp::Sub,
            &s,
            ActivationRange::NONE,
            &[10.0, 20.0],
            &[1.0, 2.0, 3.0],
            &mut out,
        );
        assert_eq!(out, [9.0, 8.0, 7.0, 19.0, 18.0, 17.0]);
    }

    #[test]
    fn mul_max_min_with_scalar_and_rank_4() {
        let s = Broadcast::new(&[1, 2, 2, 1], &[]).expect("scalar");
        let a = [1.0, -2.0, 3.0, -4.0];
        let mut out = [0.0; 4];
        binary(
            BinaryOp::Mul,
            &s,
            ActivationRange::NONE,
            &a,
            &[2.0],
            &mut out,
        );
        assert_eq!(out, [2.0, -4.0, 6.0, -8.0]);
        binary(
            BinaryOp::Maximum,
            &s,
            ActivationRange::NONE,
            &a,
            &[0.0],
            &mut out,
        );
        assert_eq!(out, [1.0, 0.0, 3.0, 0.0]);
        binary(
            BinaryOp::Minimum,
            &s,
            ActivationRange::NONE,
            &a,
            &[0.0],
            &mut out,
        );
        assert_eq!(out, [0.0, -2.0, 0.0, -4.0]);
        binary(
            BinaryOp::SquaredDifference,
            &s,
            ActivationRange::NONE,
            &a,
            &[1.0],
            &mut out,
        );
        assert_eq!(out, [0.0, 9.0, 4.0, 25.0]);
    }

    #[test]
    fn channel_bias_broadcast_over_nhwc() {
        let s = Broadcast::new(&[1, 2, 1, 3], &[3]).expect("compatible");
        let a: Vec<f32> = (0..6).map(|v| v as f32).collect();
        let mut out = [0.0; 6];
        binary(
            BinaryOp::Add,
            &s,
            ActivationRange::NONE,
            &a,
            &[100.0, 200.0, 300.0],
            &mut out,
        );
        assert_eq!(out, [100.0, 201.0, 302.0, 103.0, 204.0, 305.0]);
    }

    #[test]
    fn prelu_with_per_channel_alpha() {
        let s = Broadcast::new(&[2, 2], &[2]).expect("compatible");
        let mut out = [0.0; 4];
        prelu(&s, &[-1.0, -1.0, 2.0, -4.0], &[0.5, 0.25], &mut out);
        assert_eq!(out, [-0.5, -0.25, 2.0, -1.0]);
    }
}
