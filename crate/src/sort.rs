//! The one stable sort of the cold paths (arena planning, model summaries, the quantizer).
//!
//! Every `sort_by` / `sort_by_key` instantiates the standard library's stable sort (driftsort:
//! quicksort, merges, small sorts) for its element type and comparator, 3–6 KB of wasm each.
//! These helpers sort a permutation of indices with a comparator behind `dyn`, so the whole
//! crate's cold code shares one instantiation. The result is the standard stable sort's: the
//! elements ordered by the comparator, equal ones in their original order. Not for kernels (the
//! comparator is called through a pointer).

use std::cmp::Ordering;

/// Sorts `v` stably by `cmp`, as `v.sort_by(cmp)` does.
pub(crate) fn stable_sort_by<T>(v: &mut Vec<T>, mut cmp: impl FnMut(&T, &T) -> Ordering) {
    let order = {
        let items: &[T] = v;
        sorted_indices(items.len(), &mut |a, b| cmp(&items[a], &items[b]))
    };
    let mut slots: Vec<Option<T>> = v.drain(..).map(Some).collect();
    // `order` is a permutation of 0..len: every slot is taken exactly once.
    v.extend(order.into_iter().filter_map(|i| slots[i].take()));
}

/// Sorts `v` in increasing order, as `v.sort()` does (and `v.sort_unstable()` when equal
/// elements cannot be told apart, as for integers and tuples of them).
pub(crate) fn sort<T: Ord>(v: &mut Vec<T>) {
    stable_sort_by(v, T::cmp);
}

/// Sorts `v` stably by the key `key` gives, as `v.sort_by_key(key)` does.
pub(crate) fn stable_sort_by_key<T, K: Ord>(v: &mut Vec<T>, mut key: impl FnMut(&T) -> K) {
    stable_sort_by(v, |a, b| key(a).cmp(&key(b)));
}

/// `0..n` sorted stably by `cmp` on indices: the one instantiation of the standard stable sort.
#[inline(never)]
fn sorted_indices(n: usize, cmp: &mut dyn FnMut(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_standard_stable_sort() {
        // Many equal keys, so stability decides the order; compared with `sort_by_key` itself.
        let mut rng = fastrand::Rng::with_seed(20);
        for len in [0usize, 1, 2, 5, 19, 20, 21, 64, 257, 1000] {
            let v: Vec<(u8, u32)> = (0..len)
                .map(|i| (rng.u8(0..7), u32::try_from(i).unwrap_or(u32::MAX)))
                .collect();
            let mut want = v.clone();
            want.sort_by_key(|p| p.0);
            let mut got = v.clone();
            stable_sort_by_key(&mut got, |p| p.0);
            assert_eq!(got, want, "len {len}");
            let mut want = v.clone();
            // Decreasing by a float, as `quant::auto::mixed` ranks.
            let by = |a: &(u8, u32), b: &(u8, u32)| f32::from(b.0).total_cmp(&f32::from(a.0));
            want.sort_by(by);
            let mut got = v.clone();
            stable_sort_by(&mut got, by);
            assert_eq!(got, want, "len {len}, descending");
            let mut want = v.clone();
            want.sort_unstable();
            let mut got = v;
            sort(&mut got);
            assert_eq!(got, want, "len {len}, whole elements");
        }
    }
}
