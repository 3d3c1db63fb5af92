//! How Eigen partitions a float product that TF's calibrator runs: the summation order of every
//! element of a CONV_2D as LiteRT's multithreaded kernel computes it on Eigen's thread pool.
//!
//! TF's calibrator (`tensorflow/lite/python/optimize/calibration_wrapper.cc`) builds its logging
//! interpreter with the default thread count (`recommended_num_threads == -1`), and LiteRT's
//! `eigen_support.cc` then gives Eigen a pool of **4 threads** ([`CALIBRATOR_THREADS`]). A CONV_2D
//! whose filter is a constant and whose dilation is 1 runs `multithreaded_ops::Conv`: an Eigen
//! tensor contraction of the filter (`m = out_c` rows, `k = filter_h · filter_w · in_c`) with the
//! image patches (`n = batches · out_h · out_w` columns) — a plain matrix for a 1×1 stride-1
//! filter or a filter covering the whole unpadded input. Which order each element's `k` products
//! are added in depends on how Eigen's `TensorContractionThreadPool.h` cuts the product, which it
//! decides from the shape alone through its cost model (a deterministic function of `m`, `n`,
//! `k`, the thread count and the CPU's cache sizes; not of thread timing):
//!
//! - **`n == 1`**: a column-major GEMV (`general_matrix_vector_product`): `k` in chunks of 16
//!   (all of `k` when `k < 128`), each chunk summed in order from 0 and added to the result.
//! - **One thread** by the cost model: the sequential `gebp` blocking (`kc`, `mc`, `nc` from the
//!   single-thread heuristic of `evaluateProductBlockingSizesHeuristic`).
//! - **Several threads, sharded by the inner dimension** (`shardByInnerDim`): `k` is cut into up
//!   to 4 blocks (`blockSize`: `k / threads` rounded up to a multiple of 8, at least 96); each
//!   block is a product of its own (blocked with the block count as thread count) into its own
//!   buffer; the buffers are added in Eigen's order (`(b0 + b1) + (b2 + b3)` for four,
//!   `(b0 + b1) + b2` for three).
//! - **Several threads otherwise**: the multithreaded blocking (`kc ≤ 320`).
//!
//! Within a block, `k` runs in chunks of `kc`; each chunk is one `gebp_kernel` call whose sum for
//! the element is [`eigen::gebp_dot`] of the element's kind *relative to its `mc × nc` block*,
//! added to the result. The same single-thread blocking is what a one-thread interpreter
//! computes (`num_threads = 1` takes LiteRT's im2col + `cpu_backend_gemm` path instead, which
//! [`Plan::single`] keeps).
//!
//! The cache sizes enter the blocking (`kc` above 400 or 608 products, `nc`, `mc`), so TF's own
//! calibration of a large convolution differs between CPUs whose caches differ: the plan takes
//! the caches of the machine whose TF to reproduce ([`super::caches`]).

use super::caches::CacheSizes;
use super::eigen::{self, GebpRow};

/// Eigen's thread pool size in TF's calibrator (LiteRT's default for `num_threads = -1`).
pub const CALIBRATOR_THREADS: usize = 4;

/// `gebp_traits<float, float>` on AVX without FMA: rows per micro panel, columns per panel,
/// floats per packet.
const MR: usize = 16;
const NR: usize = 4;
const PACKET: usize = 8;

/// One product over `k0..k1`, blocked as Eigen blocks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Block {
    /// First `k` of the block.
    pub k0: usize,
    /// One past the last `k`.
    pub k1: usize,
    /// `k` per `gebp_kernel` call.
    pub kc: usize,
    /// Rows per row block.
    pub mc: usize,
    /// Columns per column block.
    pub nc: usize,
}

/// The summation order of every element of an `m × n` product over `k`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    blocks: [Block; 4],
    count: usize,
    /// Eigen's column-major GEMV: every chunk summed in order, whatever the element's kind.
    gemv: bool,
}

/// What the right-hand side of the contraction is: it enters Eigen's cost model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rhs {
    /// A plain matrix (1×1 stride-1 filter, or a filter as large as the unpadded input).
    Matrix,
    /// Eigen's image patches (`extract_image_patches`): 3 divisions and 14 multiplies of index
    /// arithmetic per coefficient in the cost model.
    ImagePatches,
}

impl Plan {
    /// One block over all of `k` (the order of LiteRT's single-threaded kernels for products
    /// that fit one `gebp` block).
    pub fn single(k: usize, m: usize, n: usize) -> Plan {
        let b = Block {
            k0: 0,
            k1: k,
            kc: k.max(1),
            mc: m.max(1),
            nc: n.max(1),
        };
        Plan {
            blocks: [b; 4],
            count: 1,
            gemv: false,
        }
    }

    /// Eigen's single-threaded general matrix product of an `m × k` matrix with a `k × n` one
    /// (`general_matrix_matrix_product`, what `cpu_backend_gemm` runs for FULLY_CONNECTED over
    /// several rows and for LiteRT's im2col CONV_2D): `k` in chunks of the `kc` the blocking
    /// heuristic picks from the CPU's `caches` (a long reduction is more than one `gebp` call),
    /// in `mc × nc` blocks.
    pub fn gemm(k: usize, m: usize, n: usize, caches: &CacheSizes) -> Plan {
        if m == 0 || n == 0 || k == 0 {
            return Plan::single(k, m, n);
        }
        let (kc, mc, nc) = blocking(k, m, n, 1, true, caches);
        Plan::blocked(k, kc, mc, nc)
    }

    /// The blocks whose sums are added together.
    pub fn blocks(&self) -> &[Block] {
        &self.blocks[..self.count]
    }

    /// Whether every chunk is summed in order (Eigen's GEMV).
    pub fn gemv(&self) -> bool {
        self.gemv
    }

    /// The contraction of an `m × k` filter with `k × n` columns on Eigen's thread pool of
    /// `threads` threads, on a CPU with `caches` (see the module).
    pub fn tensor_contraction(
        m: usize,
        n: usize,
        k: usize,
        rhs: Rhs,
        threads: usize,
        caches: &CacheSizes,
    ) -> Plan {
        if m == 0 || n == 0 || k == 0 {
            return Plan::single(k, m, n);
        }
        let cost = Costs {
            rhs_compute: match rhs {
                Rhs::Matrix => 0.0,
                Rhs::ImagePatches => (3.0 * 24.0 + 14.0) / PACKET as f64,
            },
        };
        let by_col = shard_by_col(m, n, 2);
        let (kc, mc, nc) = blocking(k, m, n, 2, by_col, caches);
        let contraction = cost.contraction(m, n, mc, nc, kc, by_col);
        let mut nt = num_threads(n as f64 * m as f64, contraction, threads);
        let nt_k = cost.threads_inner(m, n, k, threads);
        if shard_by_inner(m, n, k, nt, nt_k, caches) {
            let size = block_size(k, nt_k);
            let count = k.div_ceil(size).min(4);
            let mut blocks = [Block {
                k0: 0,
                k1: 0,
                kc: 1,
                mc: 1,
                nc: 1,
            }; 4];
            for (i, b) in blocks.iter_mut().enumerate().take(count) {
                let k0 = i * size;
                let k1 = if i + 1 == count { k } else { k0 + size };
                let (kc, mc, nc) = blocking(k1 - k0, m, n, count, true, caches);
                *b = Block { k0, k1, kc, mc, nc };
            }
            return Plan {
                blocks,
                count,
                gemv: false,
            };
        }
        if n == 1 {
            nt = 1;
        }
        if nt == 1 {
            if n == 1 {
                let chunk = if k < 128 {
                    k
                } else if m * 4 < 32000 {
                    16
                } else {
                    4
                };
                let mut plan = Plan::single(k, m, n);
                plan.blocks[0].kc = chunk;
                plan.gemv = true;
                return plan;
            }
            let (kc, mc, nc) = blocking(k, m, n, 1, true, caches);
            return Plan::blocked(k, kc, mc, nc);
        }
        let by_col = shard_by_col(m, n, nt);
        let (kc, mc, nc) = blocking(k, m, n, nt, by_col, caches);
        Plan::blocked(k, kc, mc, nc)
    }

    fn blocked(k: usize, kc: usize, mc: usize, nc: usize) -> Plan {
        let mut plan = Plan::single(k, mc, nc);
        plan.blocks[0].kc = kc.max(1);
        plan
    }

    /// Element `(i, j)` of the `m × n` product: `a` is row `i` of the filter, `b` column `j`,
    /// both of length `k`; the sum as Eigen computes it under this plan (no bias).
    pub fn dot(&self, a: &[f32], b: &[f32], (i, m): (usize, usize), (j, n): (usize, usize)) -> f32 {
        let mut sums = [0.0f32; 4];
        for (s, blk) in sums.iter_mut().zip(self.blocks()) {
            let (row, in_panel) = if self.gemv {
                (GebpRow::Pair, false)
            } else {
                blk.kind(i, m, j, n)
            };
            let mut acc = 0.0f32;
            let mut k0 = blk.k0;
            while k0 < blk.k1 {
                let k1 = (k0 + blk.kc).min(blk.k1);
                acc += eigen::gebp_dot(&a[k0..k1], &b[k0..k1], row, in_panel);
                k0 = k1;
            }
            *s = acc;
        }
        combine(&sums[..self.count])
    }
}

impl Block {
    /// The `gebp` kind of row `i` and whether column `j` is in a 4-column panel, relative to
    /// the `mc × nc` block that holds element `(i, j)` of an `m × n` product.
    pub fn kind(&self, i: usize, m: usize, j: usize, n: usize) -> (GebpRow, bool) {
        let m0 = i / self.mc * self.mc;
        let n0 = j / self.nc * self.nc;
        let rows = self.mc.min(m - m0);
        let cols = self.nc.min(n - n0);
        (GebpRow::of(i - m0, rows), j - n0 < cols / NR * NR)
    }
}

/// The per-block sums added as Eigen's `EvalShardedByInnerDimContext` adds its buffers: four as
/// `(b0 + b1) + (b2 + b3)`, fewer in order.
pub fn combine(sums: &[f32]) -> f32 {
    match *sums {
        [b0, b1, b2, b3] => (b0 + b1) + (b2 + b3),
        _ => {
            let mut it = sums.iter();
            let first = it.next().copied().unwrap_or(0.0);
            it.fold(first, |s, &b| s + b)
        }
    }
}

/// The parts of Eigen's cost model that depend on the operands: the filter is a plain map (4
/// bytes loaded, no compute per coefficient); the right-hand side adds `rhs_compute` cycles.
struct Costs {
    rhs_compute: f64,
}

/// `(bytes loaded, bytes stored, compute cycles)` of Eigen's `TensorOpCost`.
type OpCost = [f64; 3];

/// `TensorCostModel::totalCost`: 11/64 cycles per byte moved, plus the compute cycles.
fn total_cost(size: f64, c: OpCost) -> f64 {
    let per_byte = 1.0 / 64.0 * 11.0;
    size * (per_byte * c[0] + per_byte * c[1] + c[2])
}

/// `TensorCostModel::numThreads`.
fn num_threads(size: f64, c: OpCost, max: usize) -> usize {
    let threads = ((total_cost(size, c) - 100_000.0) / 100_000.0 + 0.9) as i64;
    threads.clamp(1, max.max(1) as i64) as usize
}

/// `computeBandwidth` without FMA (0.5 becomes 1.0).
fn bandwidth(by_col: bool, bm: usize, bn: usize, bk: usize) -> f64 {
    let (outer, inner) = if by_col { (bn, bm) } else { (bm, bn) };
    if bk == 1 {
        4.0
    } else if outer < NR || inner < MR {
        2.0
    } else {
        1.0
    }
}

impl Costs {
    /// `contractionCost(m, n, bm, bn, bk, shard_by_col, /*prepacked=*/false)`.
    fn contraction(
        &self,
        m: usize,
        n: usize,
        bm: usize,
        bn: usize,
        bk: usize,
        by_col: bool,
    ) -> OpCost {
        let kd = bk as f64;
        let compute = kd * bandwidth(false, bm, bn, bk) / PACKET as f64;
        let lhs = [4.0 * kd / n as f64, 0.0, 0.0];
        let rhs = [4.0 * kd / m as f64, 0.0, self.rhs_compute * kd / m as f64];
        let (lhs_load, rhs_load) = if by_col { (0.0, rhs[0]) } else { (lhs[0], 0.0) };
        [lhs_load + rhs_load, 4.0, compute + rhs[2]]
    }

    /// `numThreadsInnerDim(m, n, k)`.
    fn threads_inner(&self, m: usize, n: usize, k: usize, max: usize) -> usize {
        let (mf, nf) = (m as f64, n as f64);
        let cost = [
            4.0 * nf,
            4.0,
            bandwidth(true, m, n, k) * mf * nf / PACKET as f64 + self.rhs_compute * nf,
        ];
        let parallel = total_cost(k as f64, cost);
        let reduction = total_cost(mf * nf, [2.0, 1.0, 1.0 / PACKET as f64]);
        let (mut best, mut best_cost) = (1, parallel);
        let mut nt = 2;
        while nt <= max {
            let c = parallel / nt as f64 + 100_000.0 + nt as f64 * (reduction + 3000.0);
            if c < best_cost {
                (best, best_cost) = (nt, c);
            }
            nt += 2;
        }
        best
    }
}

/// `shardByCol(m, n, num_threads)`.
fn shard_by_col(m: usize, n: usize, t: usize) -> bool {
    if m / t >= NR
        && (n / t < NR
            || (n / t < 4 * NR
                && !n.is_multiple_of(t * NR)
                && (m.is_multiple_of(t * NR) || m / n >= 6)))
    {
        return false;
    }
    !(n / t < 16 * NR && m > n * 32)
}

/// `shardByInnerDim(m, n, k, num_threads, num_threads_by_k)`.
fn shard_by_inner(m: usize, n: usize, k: usize, t: usize, tk: usize, caches: &CacheSizes) -> bool {
    if n == 1 || tk < 2 || tk < t || m * n * 4 > caches.l3 / tk || k / tk < 2 * NR {
        return false;
    }
    m.max(n) / t < NR || (k / tk > 8 * NR && (m.min(n) < 2 * NR || tk > t))
}

/// `EvalShardedByInnerDimContext::blockSize`.
fn block_size(k: usize, threads: usize) -> usize {
    let target = k.div_ceil(threads).div_ceil(8) * 8;
    k.min(target.max(12 * PACKET))
}

/// `TensorContractionBlocking(k, m, n, num_threads)` for the sharding: `(kc, mc, nc)`.
fn blocking(
    k: usize,
    m: usize,
    n: usize,
    threads: usize,
    by_col: bool,
    caches: &CacheSizes,
) -> (usize, usize, usize) {
    if by_col {
        heuristic(k, m, n, threads, caches)
    } else {
        let (kc, nc, mc) = heuristic(k, n, m, threads, caches);
        (kc, mc, nc)
    }
}

/// `evaluateProductBlockingSizesHeuristic<float, float, 1>(k, m, n, num_threads)`.
fn heuristic(
    k: usize,
    m: usize,
    n: usize,
    threads: usize,
    c: &CacheSizes,
) -> (usize, usize, usize) {
    let (l1, l2, l3) = (c.l1, c.l2, c.l3);
    let k_div = MR * 4 + NR * 4;
    let k_sub = MR * NR * 4;
    let (mut k, mut m, mut n) = (k, m, n);
    if threads > 1 {
        let k_cache = (l1.saturating_sub(k_sub) / k_div).clamp(8, 320);
        if k_cache < k {
            k = k_cache - k_cache % 8;
        }
        let n_cache = l2.saturating_sub(l1) / (NR * 4 * k);
        let n_per = n.div_ceil(threads);
        if n_cache <= n_per {
            n = (n_cache - n_cache % NR).max(NR);
        } else {
            n = n.min((n_per + NR - 1) - (n_per + NR - 1) % NR);
        }
        if l3 > l2 {
            let m_cache = (l3 - l2) / (4 * k * threads);
            let m_per = m.div_ceil(threads);
            if m_cache < m_per && m_cache >= MR {
                m = m_cache - m_cache % MR;
            } else {
                m = m.min((m_per + MR - 1) - (m_per + MR - 1) % MR);
            }
        }
        return (k, m, n);
    }
    if k.max(m).max(n) < 48 {
        return (k, m, n);
    }
    let max_kc = ((l1.saturating_sub(k_sub) / k_div) & !7).max(1);
    let old_k = k;
    if k > max_kc {
        k = if k.is_multiple_of(max_kc) {
            max_kc
        } else {
            max_kc - 8 * ((max_kc - 1 - k % max_kc) / (8 * (k / max_kc + 1)))
        };
    }
    let actual_l2 = 1_572_864;
    let remaining_l1 = l1 as i64 - k_sub as i64 - (m * k * 4) as i64;
    let max_nc = if remaining_l1 >= (NR * 4 * k) as i64 {
        remaining_l1 as usize / (k * 4)
    } else {
        (3 * actual_l2) / (2 * 2 * max_kc * 4)
    };
    let nc = (actual_l2 / (2 * k * 4)).min(max_nc) & !(NR - 1);
    if n > nc {
        // Eigen divides by nc here; a k so large that no 4 columns fit stays unblocked.
        if nc > 0 {
            n = if n.is_multiple_of(nc) {
                nc
            } else {
                nc - NR * ((nc - n % nc) / (NR * (n / nc + 1)))
            };
        }
    } else if old_k == k {
        let problem = k * n * 4;
        let (mut actual_lm, mut max_mc) = (actual_l2, m);
        if problem <= 1024 {
            actual_lm = l1;
        } else if l3 != 0 && problem <= 32768 {
            actual_lm = l2;
            max_mc = max_mc.min(576);
        }
        let mut mc = (actual_lm / (3 * k * 4)).min(max_mc);
        if mc > MR {
            mc -= mc % MR;
        } else if mc == 0 {
            return (k, m, n);
        }
        m = if m.is_multiple_of(mc) {
            mc
        } else {
            mc - MR * ((mc - m % mc) / (MR * (m / mc + 1)))
        };
    }
    (k, m, n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(m: usize, n: usize, k: usize, rhs: Rhs) -> Plan {
        Plan::tensor_contraction(m, n, k, rhs, CALIBRATOR_THREADS, &CacheSizes::GOLDEN)
    }

    /// The partitions the Python model of Eigen's thread-pool contraction printed for shapes
    /// whose outputs it reproduced bit for bit against TF's interpreter with 4 threads (the
    /// goldens test the arithmetic; this pins the decisions).
    #[test]
    fn partitions() {
        // 3×3 stride-2 SAME 17×17×32 → 9×9×32: sharded by k, 3 blocks of 96.
        let p = plan(32, 81, 288, Rhs::ImagePatches);
        assert_eq!(p.blocks().len(), 3);
        assert_eq!(
            p.blocks()[2],
            Block {
                k0: 192,
                k1: 288,
                kc: 96,
                mc: 16,
                nc: 28
            }
        );
        // 9×9×64 → 70, 3×3 SAME: 4 threads by columns, kc 320.
        let p = plan(70, 81, 576, Rhs::ImagePatches);
        assert_eq!(
            p.blocks(),
            &[Block {
                k0: 0,
                k1: 576,
                kc: 320,
                mc: 32,
                nc: 24
            }]
        );
        // 1×1 on 16×16×64: one thread, sequential blocking.
        let p = plan(64, 256, 64, Rhs::Matrix);
        assert_eq!(
            p.blocks(),
            &[Block {
                k0: 0,
                k1: 64,
                kc: 64,
                mc: 64,
                nc: 88
            }]
        );
        // One output pixel: GEMV in chunks of 16.
        let p = plan(30, 1, 4608, Rhs::ImagePatches);
        assert!(p.gemv());
        assert_eq!(p.blocks()[0].kc, 16);
        // 2×2×512 → 30, 3×3 SAME: 4 blocks of 1152, each in kc 320.
        let p = plan(30, 4, 4608, Rhs::ImagePatches);
        assert_eq!(p.blocks().len(), 4);
        assert_eq!(p.blocks()[3].kc, 320);
        assert_eq!(p.blocks()[3].nc, 4);
    }

    #[test]
    fn combine_order() {
        // (1e8 + 1) + (-1e8 + 1) = 1e8 - 1e8 + ... : the pairwise order keeps neither 1.
        assert_eq!(combine(&[1e8, 1.0, -1e8, 1.0]), 0.0);
        assert_eq!(combine(&[1e8, -1e8, 1.0]), 1.0);
        assert_eq!(combine(&[2.5]), 2.5);
    }
}
