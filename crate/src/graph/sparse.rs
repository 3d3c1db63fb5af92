//! Sparse constant tensors (TFLite `SparsityParameters`) expanded to dense row-major bytes, as
//! LiteRT's DENSIFY operator does.
//!
//! The encoding: a tensor of rank `n` with a `k`-dimensional block has `n + k` *levels*. Levels
//! are visited in `traversal_order` (a permutation of the `n` outer dimensions followed by a
//! permutation of the `k` block dimensions; block dimension `n + j` lies inside original
//! dimension `block_map[j]`). `dim_metadata[l]` describes level `l`: `DENSE` with `dense_size`
//! entries, or `SPARSE_CSR`, whose entries under parent position `p` are
//! `array_indices[array_segments[p] .. array_segments[p + 1]]`. The buffer holds one value per
//! leaf of that walk, in walk order. A blocked dimension `d` with block size `b` has outer size
//! `shape[d] / b`, and element coordinate `outer · b + inner`.
//!
//! Every index, segment and size is checked against the tensor: a hostile file gets an error
//! string (the engine names the tensor), never a panic or an out-of-bounds write.

use crate::tflite::schema::{DimensionType, SparseIndexVectorT, SparsityParametersT};

/// Most levels a sparse encoding may have (rank + block rank).
pub const MAX_LEVELS: usize = 16;

fn index_vector(v: &SparseIndexVectorT) -> Option<Vec<usize>> {
    match v {
        SparseIndexVectorT::Int32Vector(x) => x
            .values
            .as_deref()
            .unwrap_or_default()
            .iter()
            .map(|&i| usize::try_from(i).ok())
            .collect(),
        SparseIndexVectorT::Uint16Vector(x) => Some(
            x.values
                .as_deref()
                .unwrap_or_default()
                .iter()
                .map(|&i| usize::from(i))
                .collect(),
        ),
        SparseIndexVectorT::Uint8Vector(x) => Some(
            x.values
                .as_deref()
                .unwrap_or_default()
                .iter()
                .map(|&i| usize::from(i))
                .collect(),
        ),
        SparseIndexVectorT::NONE => None,
    }
}

enum Level {
    Dense(usize),
    Csr {
        segments: Vec<usize>,
        indices: Vec<usize>,
    },
}

struct Walk<'a> {
    levels: Vec<Level>,
    /// Expanded dimension of each level (index into `coords`).
    dims: Vec<usize>,
    /// Size of each expanded dimension (outer sizes, then block sizes).
    sizes: Vec<usize>,
    /// For expanded dimension e ≥ n: the original dimension it lies in.
    block_of: Vec<usize>,
    /// Block size of each original dimension (1 if not blocked).
    block: Vec<usize>,
    /// Row-major strides of the dense tensor.
    strides: Vec<usize>,
    n: usize,
    elem: usize,
    values: &'a [u8],
    next: usize,
    coords: Vec<usize>,
}

impl Walk<'_> {
    /// The checked `[lo, hi)` range of CSR level `level` under parent position `pos`.
    fn segment(&self, level: usize, pos: usize) -> Result<(usize, usize), String> {
        let Level::Csr { segments, indices } = &self.levels[level] else {
            return Ok((0, 0));
        };
        match (
            segments.get(pos),
            pos.checked_add(1).and_then(|p| segments.get(p)),
        ) {
            (Some(&lo), Some(&hi)) if lo <= hi && hi <= indices.len() => Ok((lo, hi)),
            _ => Err(format!("array_segments of level {level} is malformed")),
        }
    }

    /// Entry `j` of CSR level `level`'s indices (`j` within a checked segment).
    fn index(&self, level: usize, j: usize) -> usize {
        match &self.levels[level] {
            Level::Csr { indices, .. } => indices.get(j).copied().unwrap_or(usize::MAX),
            Level::Dense(_) => usize::MAX,
        }
    }

    fn visit(&mut self, level: usize, pos: usize, out: &mut [u8]) -> Result<(), String> {
        if level == self.levels.len() {
            let mut at = 0usize;
            for d in 0..self.n {
                let mut c = self.coords[d] * self.block[d];
                for (j, &bd) in self.block_of.iter().enumerate() {
                    if bd == d {
                        c += self.coords[self.n + j];
                    }
                }
                at += c * self.strides[d];
            }
            let src = self.next * self.elem;
            let value = self
                .values
                .get(src..src + self.elem)
                .ok_or("the buffer holds fewer values than the sparse structure lists")?;
            let dst = at * self.elem;
            out.get_mut(dst..dst + self.elem)
                .ok_or("a sparse index lies outside the dense shape")?
                .copy_from_slice(value);
            self.next += 1;
            return Ok(());
        }
        let dim = self.dims[level];
        match self.levels[level] {
            Level::Dense(size) => {
                for i in 0..size {
                    self.coords[dim] = i;
                    let child = pos
                        .checked_mul(size)
                        .and_then(|p| p.checked_add(i))
                        .ok_or("sparse position overflows")?;
                    self.visit(level + 1, child, out)?;
                }
            }
            Level::Csr { .. } => {
                let (lo, hi) = self.segment(level, pos)?;
                for j in lo..hi {
                    let idx = self.index(level, j);
                    if idx >= self.sizes[dim] {
                        return Err(format!(
                            "array_indices of level {level} holds {idx}, beyond size {}",
                            self.sizes[dim]
                        ));
                    }
                    self.coords[dim] = idx;
                    self.visit(level + 1, j, out)?;
                }
            }
        }
        Ok(())
    }
}

/// Expands the sparse `values` (elements of `elem` bytes, in the encoding's walk order) into the
/// dense row-major tensor of `shape`. Unlisted elements are zero bytes (0.0, or the raw 0 of an
/// integer type, as LiteRT's DENSIFY writes).
pub fn densify(
    values: &[u8],
    elem: usize,
    shape: &[usize],
    sp: &SparsityParametersT,
) -> Result<Vec<u8>, String> {
    let n = shape.len();
    let order: Vec<usize> = sp
        .traversal_order
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| "negative traversal_order entry".to_string()))
        .collect::<Result<_, _>>()?;
    let block_map: Vec<usize> = sp
        .block_map
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|&d| {
            usize::try_from(d)
                .ok()
                .filter(|&d| d < n)
                .ok_or_else(|| format!("block_map entry {d} is not a dimension of rank {n}"))
        })
        .collect::<Result<_, _>>()?;
    let meta = sp.dim_metadata.as_deref().unwrap_or_default();
    let levels_n = n + block_map.len();
    if order.len() != levels_n || meta.len() != levels_n || levels_n > MAX_LEVELS {
        return Err(format!(
            "traversal_order ({}) and dim_metadata ({}) must both list rank + block rank = {} \
             levels (at most {MAX_LEVELS})",
            order.len(),
            meta.len(),
            levels_n
        ));
    }
    let mut seen = vec![false; levels_n];
    for &d in &order {
        if d >= levels_n || std::mem::replace(&mut seen[d], true) {
            return Err("traversal_order is not a permutation".into());
        }
    }
    // Block sizes: the dense_size of each block level.
    let mut block = vec![1usize; n];
    let mut sizes = vec![0usize; levels_n];
    for (l, &d) in order.iter().enumerate() {
        if d >= n {
            let m = &meta[l];
            let b = usize::try_from(m.dense_size)
                .ok()
                .filter(|&b| b > 0 && m.format == DimensionType::DENSE)
                .ok_or("a block level must be DENSE with a positive dense_size")?;
            let od = block_map[d - n];
            if block[od] != 1 {
                return Err(format!("dimension {od} is blocked twice"));
            }
            block[od] = b;
            sizes[d] = b;
        }
    }
    for d in 0..n {
        if !shape[d].is_multiple_of(block[d]) {
            return Err(format!(
                "dimension {d} of size {} is not a multiple of its block size {}",
                shape[d], block[d]
            ));
        }
        sizes[d] = shape[d] / block[d];
    }
    let mut levels = Vec::with_capacity(levels_n);
    for (l, m) in meta.iter().enumerate() {
        let size = sizes[order[l]];
        levels.push(if m.format == DimensionType::SPARSE_CSR {
            let segments = index_vector(&m.array_segments)
                .ok_or_else(|| format!("level {l} is SPARSE_CSR without valid array_segments"))?;
            let indices = index_vector(&m.array_indices)
                .ok_or_else(|| format!("level {l} is SPARSE_CSR without valid array_indices"))?;
            Level::Csr { segments, indices }
        } else {
            if usize::try_from(m.dense_size).ok() != Some(size) {
                return Err(format!(
                    "level {l} is DENSE of size {} but its dimension has size {size}",
                    m.dense_size
                ));
            }
            Level::Dense(size)
        });
    }
    let total = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .and_then(|t| t.checked_mul(elem))
        .ok_or("dense size overflows")?;
    let mut strides = vec![1usize; n];
    for d in (0..n.saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * shape[d + 1];
    }
    let mut out = vec![0u8; total];
    let mut walk = Walk {
        levels,
        dims: order,
        sizes,
        block_of: block_map,
        block,
        strides,
        n,
        elem,
        values,
        next: 0,
        coords: vec![0; levels_n],
    };
    walk.visit(0, 0, &mut out)?;
    if walk.next * elem != values.len() {
        return Err(format!(
            "the buffer holds {} values, the sparse structure lists {}",
            values.len() / elem.max(1),
            walk.next
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tflite::schema::{DimensionMetadataT, Int32VectorT, Uint8VectorT};

    fn dense(size: i32) -> DimensionMetadataT {
        DimensionMetadataT {
            format: DimensionType::DENSE,
            dense_size: size,
            ..Default::default()
        }
    }

    fn csr(segments: Vec<i32>, indices: Vec<u8>) -> DimensionMetadataT {
        DimensionMetadataT {
            format: DimensionType::SPARSE_CSR,
            dense_size: 0,
            array_segments: SparseIndexVectorT::Int32Vector(Box::new(Int32VectorT {
                values: Some(segments),
            })),
            array_indices: SparseIndexVectorT::Uint8Vector(Box::new(Uint8VectorT {
                values: Some(indices),
            })),
        }
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// The CSR example of the TFLite schema documentation: a 4×4 matrix
    /// [[1,0,2,3],[0,4,0,0],[0,0,5,0],[0,0,0,6]], rows dense, columns CSR.
    #[test]
    fn csr_matrix() {
        let sp = SparsityParametersT {
            traversal_order: Some(vec![0, 1]),
            block_map: None,
            dim_metadata: Some(vec![
                dense(4),
                csr(vec![0, 3, 4, 5, 6], vec![0, 2, 3, 1, 2, 3]),
            ]),
        };
        let out = densify(&f32s(&[1., 2., 3., 4., 5., 6.]), 4, &[4, 4], &sp).expect("valid");
        let want = f32s(&[
            1., 0., 2., 3., 0., 4., 0., 0., 0., 0., 5., 0., 0., 0., 0., 6.,
        ]);
        assert_eq!(out, want);
    }

    /// 4×4 with 2×2 blocks: outer 2×2 (rows dense, block columns CSR), blocks dense.
    #[test]
    fn block_sparse() {
        let sp = SparsityParametersT {
            traversal_order: Some(vec![0, 1, 2, 3]),
            block_map: Some(vec![0, 1]),
            dim_metadata: Some(vec![
                dense(2),
                // block row 0 holds block column 1; block row 1 holds block column 0.
                csr(vec![0, 1, 2], vec![1, 0]),
                dense(2),
                dense(2),
            ]),
        };
        let out =
            densify(&f32s(&[1., 2., 3., 4., 5., 6., 7., 8.]), 4, &[4, 4], &sp).expect("valid");
        let want = f32s(&[
            0., 0., 1., 2., 0., 0., 3., 4., 5., 6., 0., 0., 7., 8., 0., 0.,
        ]);
        assert_eq!(out, want);
    }

    #[test]
    fn hostile_encodings_are_errors() {
        let base = |segments: Vec<i32>, indices: Vec<u8>| SparsityParametersT {
            traversal_order: Some(vec![0, 1]),
            block_map: None,
            dim_metadata: Some(vec![dense(2), csr(segments, indices)]),
        };
        let v = f32s(&[1., 2.]);
        // Index past the dense size.
        assert!(densify(&v, 4, &[2, 2], &base(vec![0, 1, 2], vec![0, 9])).is_err());
        // Segments decreasing / past the indices.
        assert!(densify(&v, 4, &[2, 2], &base(vec![0, 2, 1], vec![0, 1])).is_err());
        assert!(densify(&v, 4, &[2, 2], &base(vec![0, 1, 7], vec![0, 1])).is_err());
        // Too few values for the structure, and too many.
        assert!(densify(&v[..4], 4, &[2, 2], &base(vec![0, 1, 2], vec![0, 1])).is_err());
        assert!(
            densify(
                &f32s(&[1., 2., 3.]),
                4,
                &[2, 2],
                &base(vec![0, 1, 2], vec![0, 1])
            )
            .is_err()
        );
        // Not a permutation; wrong level count.
        let mut sp = base(vec![0, 1, 2], vec![0, 1]);
        sp.traversal_order = Some(vec![0, 0]);
        assert!(densify(&v, 4, &[2, 2], &sp).is_err());
        sp.traversal_order = Some(vec![0]);
        assert!(densify(&v, 4, &[2, 2], &sp).is_err());
        // The valid one works.
        assert!(densify(&v, 4, &[2, 2], &base(vec![0, 1, 2], vec![0, 1])).is_ok());
    }
}
