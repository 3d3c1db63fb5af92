//! FULLY_CONNECTED as LiteRT's optimized float kernel (`optimized_ops::FullyConnected` →
//! `cpu_backend_gemm::Gemm` → `GemmImplUsingEigen`): the `out_c × batches` product of the weights
//! (row-major `out_c × depth`) and the input (`depth × batches`) with Eigen, then `BiasAndClamp`
//! adds the bias and clamps. Which Eigen product runs depends on the shape:
//!
//! - one batch row: matrix × vector ([`eigen::gemv_row_major`]; one unit: the inner product);
//! - several rows, `depth + out_c + batches < 20`: Eigen's coefficient-based lazy product, each
//!   element summed in order from its first product;
//! - otherwise the general product, blocked as [`Plan::gemm`] says (a depth longer than one
//!   `gebp` block is summed in `kc` chunks, which depend on the CPU's caches).

use super::contraction::Plan;
use super::eigen;
use crate::reference::fully_connected::FullyConnectedParams;

/// FULLY_CONNECTED (float): the Eigen product for the shape (see the module; `plan` is the
/// general product's, [`Plan::gemm`] of `accum_depth`, `out_c`, `batches`), then `out + bias`,
/// clamped.
pub fn fully_connected(
    p: &FullyConnectedParams,
    plan: &Plan,
    input: &[f32],
    weights: &[f32],
    bias: Option<&[f32]>,
    output: &mut [f32],
) {
    let d = p.accum_depth;
    let lazy = d + p.out_c + p.batches < 20;
    for b in 0..p.batches {
        let row = &input[b * d..(b + 1) * d];
        let out = &mut output[b * p.out_c..(b + 1) * p.out_c];
        if p.batches == 1 {
            eigen::gemv_row_major(weights, row, out);
        } else {
            for (oc, o) in out.iter_mut().enumerate() {
                let w = &weights[oc * d..(oc + 1) * d];
                *o = if lazy {
                    let mut s = w.first().zip(row.first()).map_or(0.0, |(a, x)| a * x);
                    for k in 1..d {
                        s += w[k] * row[k];
                    }
                    s
                } else {
                    plan.dot(w, row, (oc, p.out_c), (b, p.batches))
                };
            }
        }
        for (oc, v) in out.iter_mut().enumerate() {
            let bias_value = bias.map_or(0.0, |bias| bias[oc]);
            *v = p.act.apply(*v + bias_value);
        }
    }
}
