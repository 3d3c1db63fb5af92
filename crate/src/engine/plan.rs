//! The memory plan: one arena for every tensor computed at run time, offsets chosen so that
//! tensors whose lifetimes overlap never share bytes (greedy by size, as LiteRT's
//! `SimpleMemoryPlanner` / `GreedyMemoryPlanner` do).

/// Alignment of every tensor in the arena and the constant store, in bytes (a SIMD128 vector).
pub const ALIGN: usize = 16;

/// A buffer to place: its size and the first and last step (inclusive) during which it must hold
/// its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    /// Bytes needed.
    pub size: usize,
    /// First step at which it is live.
    pub first: usize,
    /// Last step at which it is live.
    pub last: usize,
}

/// Rounds `n` up to [`ALIGN`], or `None` on overflow.
pub fn align_up(n: usize) -> Option<usize> {
    n.checked_add(ALIGN - 1).map(|v| v / ALIGN * ALIGN)
}

/// Lifetimes longer than this many steps are kept in a short list that every placement scans;
/// shorter ones are found through an index by first step, so a chain of 100,000 operators plans
/// in linear time (scanning every placed request made it quadratic: 100k TANH ops took 6 s).
const LONG_LIVED: usize = 64;

/// Places every request; returns the offset of each and the arena size. Requests are placed
/// largest first, each at the lowest aligned offset that does not overlap any already-placed
/// request whose lifetime intersects its own. `None` if sizes overflow.
pub fn plan(requests: &[Request]) -> Option<(Vec<usize>, usize)> {
    let mut order: Vec<usize> = (0..requests.len()).collect();
    crate::sort::stable_sort_by(&mut order, |&a, &b| {
        requests[b]
            .size
            .cmp(&requests[a].size)
            .then(requests[a].first.cmp(&requests[b].first))
    });
    let mut offsets = vec![0usize; requests.len()];
    // Placed requests: long-lived ones in a list, the others by first step.
    let mut long: Vec<usize> = Vec::new();
    let mut by_first: std::collections::BTreeMap<usize, Vec<usize>> = Default::default();
    let mut total = 0usize;
    for &i in &order {
        let r = requests[i];
        let size = align_up(r.size)?;
        let live = |j: &usize| requests[*j].first <= r.last && r.first <= requests[*j].last;
        // A short-lived request live with `r` starts at most LONG_LIVED steps before `r` does.
        let short = by_first
            .range(r.first.saturating_sub(LONG_LIVED)..=r.last)
            .flat_map(|(_, js)| js);
        // Busy intervals of placed requests that are live at the same time, sorted by offset.
        let mut busy: Vec<(usize, usize)> = long
            .iter()
            .chain(short)
            .filter(|j| live(j))
            .map(|&j| {
                (
                    offsets[j],
                    offsets[j] + align_up(requests[j].size).unwrap_or(usize::MAX),
                )
            })
            .collect();
        crate::sort::sort(&mut busy);
        let mut offset = 0usize;
        for (start, end) in busy {
            if offset.checked_add(size)? <= start {
                break;
            }
            offset = offset.max(end);
        }
        offsets[i] = offset;
        total = total.max(offset.checked_add(size)?);
        if r.last.saturating_sub(r.first) > LONG_LIVED {
            long.push(i);
        } else {
            by_first.entry(r.first).or_default().push(i);
        }
    }
    Some((offsets, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn overlaps(a: (usize, usize, Request), b: (usize, usize, Request)) -> bool {
        let live = a.2.first <= b.2.last && b.2.first <= a.2.last;
        let mem = a.0 < b.0 + b.1 && b.0 < a.0 + a.1;
        live && mem && a.1 > 0 && b.1 > 0
    }

    #[test]
    fn a_chain_reuses_memory() {
        // t0 → t1 → t2 → t3, each live at its producing step and the next.
        let reqs: Vec<Request> = (0..4)
            .map(|i| Request {
                size: 100,
                first: i,
                last: i + 1,
            })
            .collect();
        let (offsets, total) = plan(&reqs).expect("fits");
        // Two buffers ping-pong: 2 × 112 bytes.
        assert_eq!(total, 224);
        assert_eq!(offsets[0], offsets[2]);
        assert_ne!(offsets[0], offsets[1]);
    }

    #[test]
    fn live_buffers_never_overlap() {
        let reqs = [
            Request {
                size: 10,
                first: 0,
                last: 5,
            },
            Request {
                size: 300,
                first: 1,
                last: 2,
            },
            Request {
                size: 40,
                first: 2,
                last: 3,
            },
            Request {
                size: 0,
                first: 3,
                last: 3,
            },
            Request {
                size: 300,
                first: 3,
                last: 4,
            },
            Request {
                size: 17,
                first: 0,
                last: 0,
            },
        ];
        let (offsets, total) = plan(&reqs).expect("fits");
        for i in 0..reqs.len() {
            assert_eq!(offsets[i] % ALIGN, 0);
            assert!(offsets[i] + reqs[i].size <= total);
            for j in 0..i {
                let a = (offsets[i], reqs[i].size, reqs[i]);
                let b = (offsets[j], reqs[j].size, reqs[j]);
                assert!(!overlaps(a, b), "{i} and {j}");
            }
        }
        // The two 300-byte buffers are never live together: they share memory.
        assert_eq!(offsets[1], offsets[4]);
    }

    /// The indexed search finds exactly the requests a scan of every placed one finds: random
    /// lifetimes short and long, every pair live together placed apart.
    #[test]
    fn indexed_placement_never_overlaps_live_buffers() {
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: usize| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            (rng % m as u64) as usize
        };
        let reqs: Vec<Request> = (0..400)
            .map(|_| {
                let first = next(300);
                let len = if next(10) == 0 { next(300) } else { next(4) };
                Request {
                    size: 1 + next(500),
                    first,
                    last: first + len,
                }
            })
            .collect();
        let (offsets, total) = plan(&reqs).expect("fits");
        for i in 0..reqs.len() {
            assert!(offsets[i] + reqs[i].size <= total);
            for j in 0..i {
                let a = (offsets[i], reqs[i].size, reqs[i]);
                let b = (offsets[j], reqs[j].size, reqs[j]);
                assert!(!overlaps(a, b), "{i} and {j}");
            }
        }
    }

    #[test]
    fn a_long_chain_plans_in_two_buffers() {
        // 200,000 chained tensors (each live at its step and the next) and the graph's input and
        // output live throughout: the chain ping-pongs in two buffers beside them.
        let mut reqs: Vec<Request> = (0..200_000)
            .map(|i| Request {
                size: 64,
                first: i,
                last: i + 1,
            })
            .collect();
        reqs.push(Request {
            size: 64,
            first: 0,
            last: 200_001,
        });
        let (_, total) = plan(&reqs).expect("fits");
        assert_eq!(total, 3 * 64);
    }

    #[test]
    fn overflowing_sizes_are_refused() {
        assert!(
            plan(&[Request {
                size: usize::MAX,
                first: 0,
                last: 0
            }])
            .is_none()
        );
    }
}
