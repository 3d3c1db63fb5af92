//! `TFLite_Detection_PostProcess` (LiteRT's custom `detection_postprocess.cc`): SSD box decoding
//! with the center-size encoding, then non-maximum suppression, fast (one pass over each
//! anchor's best class) or regular (per class, then the best across classes).
//!
//! Everything mirrors LiteRT's arithmetic and orderings so the outputs are bit-identical:
//! - decoding in double from float operands, each coordinate rounded to float once; the corners
//!   `center ∓ half` in float;
//! - IoU in float with `std::max` / `std::min` semantics (a NaN first operand is kept);
//! - candidates at or above the score threshold, sorted by decreasing score with a stable sort;
//!   a later candidate is dropped when its IoU with a kept one is strictly above the threshold;
//! - fast NMS: each anchor's top-k classes by libstdc++'s `std::partial_sort` (heap select, then
//!   heap sort: the order of tied scores is that algorithm's, not index order), or the first
//!   maximum when only one is wanted (`ArgMaxVector`);
//! - regular NMS (LiteRT's current `ComputeNMSResult`): per class at most
//!   `min(detections_per_class, max_detections)` boxes, merged into one list by decreasing score
//!   that keeps its best `max_detections`; tied scores keep earlier classes first (measured on
//!   LiteRT 2.3's outputs, the `detpp_regular*` cases of tests/realworld).
//!
//! Scratch space is owned by [`Scratch`] (sized once), so running never allocates.

/// The operator's options (its custom options map), checked by the op's prepare.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DetectionParams {
    /// Number of output detections (anchors).
    pub max_detections: usize,
    /// Classes reported per detection (fast NMS).
    pub max_classes_per_detection: usize,
    /// Detections kept per class (regular NMS).
    pub detections_per_class: usize,
    /// Minimum score of a candidate.
    pub score_threshold: f32,
    /// IoU above which a candidate is suppressed, in (0, 1].
    pub iou_threshold: f32,
    /// Classes without the background.
    pub num_classes: usize,
    /// Regular (per class) rather than fast NMS.
    pub use_regular_nms: bool,
    /// Scales of the encoding: y, x, h, w.
    pub scale: [f32; 4],
}

/// Preallocated working memory for one operator.
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    keep_scores: Vec<f32>,
    keep_indices: Vec<usize>,
    order: Vec<usize>,
    merge: Vec<usize>,
    active: Vec<bool>,
    selected: Vec<usize>,
    class_scores: Vec<f32>,
    merged_indices: Vec<usize>,
    merged_scores: Vec<f32>,
    sorted: Vec<usize>,
    sorted_values: Vec<f32>,
    max_scores: Vec<f32>,
    class_order: Vec<usize>,
}

impl Scratch {
    /// Working memory for `num_boxes` anchors and `num_classes` classes.
    pub fn new(num_boxes: usize, p: &DetectionParams) -> Self {
        let merged = p.max_detections;
        Scratch {
            keep_scores: Vec::with_capacity(num_boxes),
            keep_indices: Vec::with_capacity(num_boxes),
            order: Vec::with_capacity(num_boxes),
            merge: Vec::with_capacity(num_boxes),
            active: Vec::with_capacity(num_boxes),
            selected: Vec::with_capacity(num_boxes),
            class_scores: vec![0.0; num_boxes],
            merged_indices: vec![0; merged],
            merged_scores: vec![0.0; merged],
            sorted: vec![0; merged.max(p.num_classes)],
            sorted_values: vec![0.0; p.max_detections],
            max_scores: vec![0.0; num_boxes],
            class_order: vec![0; num_boxes * p.num_classes],
        }
    }
}

/// The outputs: boxes `[M, 4]` (ymin, xmin, ymax, xmax), classes `[M]`, scores `[M]` and the
/// number of detections, `M = max_detections · max_classes_per_detection`.
pub struct Outputs<'a> {
    /// Detection boxes.
    pub boxes: &'a mut [f32],
    /// Class of each detection (without the background).
    pub classes: &'a mut [f32],
    /// Score of each detection.
    pub scores: &'a mut [f32],
}

/// Decodes one center-size box `[y, x, h, w]` against its anchor `[y, x, h, w]` into corners
/// `[ymin, xmin, ymax, xmax]`.
pub fn decode_box(enc: [f32; 4], anchor: [f32; 4], scale: [f32; 4]) -> [f32; 4] {
    let d = |v: f32| f64::from(v);
    let yc = (d(enc[0]) / d(scale[0]) * d(anchor[2]) + d(anchor[0])) as f32;
    let xc = (d(enc[1]) / d(scale[1]) * d(anchor[3]) + d(anchor[1])) as f32;
    let half_h = (0.5 * (d(enc[2]) / d(scale[2])).exp() * d(anchor[2])) as f32;
    let half_w = (0.5 * (d(enc[3]) / d(scale[3])).exp() * d(anchor[3])) as f32;
    [yc - half_h, xc - half_w, yc + half_h, xc + half_w]
}

/// Whether every decoded box has `ymin ≤ ymax` and `xmin ≤ xmax` (LiteRT's `ValidateBoxes`;
/// NaN coordinates pass, as there).
pub fn boxes_valid(decoded: &[f32]) -> bool {
    decoded
        .chunks_exact(4)
        .all(|b| !(b[0] > b[2] || b[1] > b[3]))
}

/// `std::max<float>(a, b)`: `a < b ? b : a`.
fn cmax(a: f32, b: f32) -> f32 {
    if a < b { b } else { a }
}

/// `std::min<float>(a, b)`: `b < a ? b : a`.
fn cmin(a: f32, b: f32) -> f32 {
    if b < a { b } else { a }
}

/// IoU of decoded boxes `i` and `j` (0 when either has no positive area).
fn iou(decoded: &[f32], i: usize, j: usize) -> f32 {
    let (a, b) = (&decoded[4 * i..4 * i + 4], &decoded[4 * j..4 * j + 4]);
    let area_a = (a[2] - a[0]) * (a[3] - a[1]);
    let area_b = (b[2] - b[0]) * (b[3] - b[1]);
    if area_a <= 0.0 || area_b <= 0.0 {
        return 0.0;
    }
    let ymin = cmax(a[0], b[0]);
    let xmin = cmax(a[1], b[1]);
    let ymax = cmin(a[2], b[2]);
    let xmax = cmin(a[3], b[3]);
    let inter = cmax(ymax - ymin, 0.0) * cmax(xmax - xmin, 0.0);
    inter / (area_a + area_b - inter)
}

/// libstdc++'s `__adjust_heap` then `__push_heap` on `idx[..len]`, ordered by `less(a, b)`.
fn adjust_heap(
    idx: &mut [usize],
    mut hole: usize,
    len: usize,
    value: usize,
    less: &dyn Fn(usize, usize) -> bool,
) {
    let top = hole;
    let mut child = hole;
    // `(len - 1) / 2` in signed arithmetic: 0 for len 0.
    let half = len.saturating_sub(1) / 2;
    while child < half {
        child = 2 * (child + 1);
        if less(idx[child], idx[child - 1]) {
            child -= 1;
        }
        idx[hole] = idx[child];
        hole = child;
    }
    if len & 1 == 0 && len >= 2 && child == (len - 2) / 2 {
        child = 2 * (child + 1);
        idx[hole] = idx[child - 1];
        hole = child - 1;
    }
    // __push_heap
    while hole > top {
        let parent = (hole - 1) / 2;
        if !less(idx[parent], value) {
            break;
        }
        idx[hole] = idx[parent];
        hole = parent;
    }
    idx[hole] = value;
}

/// The `k` largest of `values` (indices, decreasing) in `idx[..k]`, as LiteRT's
/// `DecreasingPartialArgSort`: the first maximum when `k == 1`, otherwise `iota` then
/// libstdc++'s `std::partial_sort` with `values[i] > values[j]` (`idx[k..]` is left in that
/// algorithm's order too, but only `idx[..k]` is read).
fn decreasing_partial_arg_sort(values: &[f32], k: usize, idx: &mut [usize]) {
    let n = values.len();
    if k == 1 {
        let mut best = 0;
        for (i, &v) in values.iter().enumerate().skip(1) {
            if v > values[best] {
                best = i;
            }
        }
        idx[0] = best;
        return;
    }
    for (i, slot) in idx[..n].iter_mut().enumerate() {
        *slot = i;
    }
    if k == 0 {
        return;
    }
    let less = |a: usize, b: usize| values[a] > values[b];
    // __make_heap over idx[..k]
    if k >= 2 {
        let mut parent = (k - 2) / 2;
        loop {
            let v = idx[parent];
            adjust_heap(idx, parent, k, v, &less);
            if parent == 0 {
                break;
            }
            parent -= 1;
        }
    }
    // __heap_select
    for i in k..n {
        if less(idx[i], idx[0]) {
            let v = idx[i];
            idx[i] = idx[0];
            adjust_heap(idx, 0, k, v, &less);
        }
    }
    // __sort_heap
    let mut last = k;
    while last > 1 {
        last -= 1;
        let v = idx[last];
        idx[last] = idx[0];
        adjust_heap(idx, 0, last, v, &less);
    }
}

/// Sorts `order` (positions into `keys`) by decreasing key, stably (a merge sort into the
/// preallocated `buf`, which has `order`'s capacity).
fn stable_sort_decreasing(keys: &[f32], order: &mut [usize], buf: &mut Vec<usize>) {
    let n = order.len();
    buf.clear();
    buf.resize(n, 0);
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut a, mut b, mut o) = (start, mid, start);
            while a < mid && b < end {
                // Take from the right run only when strictly greater (stability).
                if keys[order[b]] > keys[order[a]] {
                    buf[o] = order[b];
                    b += 1;
                } else {
                    buf[o] = order[a];
                    a += 1;
                }
                o += 1;
            }
            buf[o..o + mid - a].copy_from_slice(&order[a..mid]);
            o += mid - a;
            buf[o..o + end - b].copy_from_slice(&order[b..end]);
            start = end;
        }
        order.copy_from_slice(&buf[..n]);
        width *= 2;
    }
}

/// LiteRT's `NonMaxSuppressionSingleClassHelper`: the indices of at most `max_detections` boxes
/// (decreasing score) into `s.selected`, from `scores` (one per box).
fn nms_single_class(
    decoded: &[f32],
    scores: &[f32],
    p: &DetectionParams,
    max_detections: usize,
    s: &mut Scratch,
) {
    s.keep_scores.clear();
    s.keep_indices.clear();
    for (i, &v) in scores.iter().enumerate() {
        if v >= p.score_threshold {
            s.keep_scores.push(v);
            s.keep_indices.push(i);
        }
    }
    let kept = s.keep_scores.len();
    s.order.clear();
    s.order.extend(0..kept);
    stable_sort_decreasing(&s.keep_scores, &mut s.order, &mut s.merge);
    let output_size = kept.min(max_detections);
    s.selected.clear();
    s.active.clear();
    s.active.resize(kept, true);
    let mut num_active = kept;
    for i in 0..kept {
        if num_active == 0 || s.selected.len() >= output_size {
            break;
        }
        if !s.active[i] {
            continue;
        }
        let bi = s.keep_indices[s.order[i]];
        s.selected.push(bi);
        s.active[i] = false;
        num_active -= 1;
        for j in i + 1..kept {
            if s.active[j] && iou(decoded, bi, s.keep_indices[s.order[j]]) > p.iou_threshold {
                s.active[j] = false;
                num_active -= 1;
            }
        }
    }
}

/// Writes box `b` of `decoded` to output slot `slot`, with its class and score.
fn put(out: &mut Outputs<'_>, slot: usize, decoded: &[f32], b: usize, class: usize, score: f32) {
    out.boxes[4 * slot..4 * slot + 4].copy_from_slice(&decoded[4 * b..4 * b + 4]);
    out.classes[slot] = class as f32;
    out.scores[slot] = score;
}

/// NMS over `decoded` boxes (`[N, 4]`) and `scores` (`[N, C']`, `C'` = classes with the
/// background, which comes first when `C' = num_classes + 1`). Every output slot is written:
/// those LiteRT leaves unwritten (fast NMS: past the detections, and the class slots past
/// `num_classes`) are zero here. Returns the number of detections.
pub fn non_max_suppression(
    decoded: &[f32],
    scores: &[f32],
    classes_with_background: usize,
    p: &DetectionParams,
    s: &mut Scratch,
    out: &mut Outputs<'_>,
) -> usize {
    out.boxes.fill(0.0);
    out.classes.fill(0.0);
    out.scores.fill(0.0);
    let num_boxes = decoded.len() / 4;
    let cb = classes_with_background;
    let offset = cb - p.num_classes;
    if p.use_regular_nms {
        // Per class, at most min(detections_per_class, max_detections) boxes, merged into the
        // running list sorted by decreasing score (ties: earlier classes first), which keeps
        // its best max_detections.
        let per_class = p.detections_per_class.min(p.max_detections);
        let mut size = 0;
        for col in 0..p.num_classes {
            for row in 0..num_boxes {
                s.class_scores[row] = scores[row * cb + col + offset];
            }
            let class_scores = std::mem::take(&mut s.class_scores);
            nms_single_class(decoded, &class_scores, p, per_class, s);
            let (mut a, mut b, mut o) = (0, 0, 0);
            let n = s.selected.len();
            while o < p.max_detections && (a < size || b < n) {
                let take_new =
                    b < n && (a >= size || class_scores[s.selected[b]] > s.merged_scores[a]);
                if take_new {
                    let sel = s.selected[b];
                    s.sorted[o] = sel * cb + col + offset;
                    s.sorted_values[o] = class_scores[sel];
                    b += 1;
                } else {
                    s.sorted[o] = s.merged_indices[a];
                    s.sorted_values[o] = s.merged_scores[a];
                    a += 1;
                }
                o += 1;
            }
            s.merged_indices[..o].copy_from_slice(&s.sorted[..o]);
            s.merged_scores[..o].copy_from_slice(&s.sorted_values[..o]);
            size = o;
            s.class_scores = class_scores;
        }
        for slot in 0..size {
            let flat = s.merged_indices[slot];
            let anchor = flat / cb;
            put(
                out,
                slot,
                decoded,
                anchor,
                flat - anchor * cb - offset,
                s.merged_scores[slot],
            );
        }
        size
    } else {
        let nc = p.num_classes;
        let per_anchor = p.max_classes_per_detection.min(nc);
        for row in 0..num_boxes {
            let box_scores = &scores[row * cb + offset..row * cb + offset + nc];
            let order = &mut s.class_order[row * nc..(row + 1) * nc];
            decreasing_partial_arg_sort(box_scores, per_anchor, order);
            s.max_scores[row] = box_scores[order[0]];
        }
        let max_scores = std::mem::take(&mut s.max_scores);
        nms_single_class(decoded, &max_scores, p, p.max_detections, s);
        s.max_scores = max_scores;
        for (k, &sel) in s.selected.iter().enumerate() {
            let box_scores = &scores[sel * cb + offset..sel * cb + offset + nc];
            let order = &s.class_order[sel * nc..(sel + 1) * nc];
            for (col, &c) in order.iter().take(per_anchor).enumerate() {
                let slot = p.max_classes_per_detection * k + col;
                put(out, slot, decoded, sel, c, box_scores[c]);
            }
        }
        s.selected.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(values, k, first k indices)` as `std::partial_sort` of libstdc++ (g++ 12; LiteRT's Linux
    /// wheels link libstdc++) leaves them with `values[i] > values[j]`, on tied values.
    const LIBSTDCXX: &[(&[f32], usize, &[usize])] = &[
        (
            &[0.00, 0.00, 0.75, 0.25, 0.75, 0.25, 0.75, 0.00],
            5,
            &[4, 6, 2, 5, 3],
        ),
        (
            &[
                0.00, 0.75, 0.25, 0.00, 0.50, 0.25, 0.50, 0.00, 0.50, 0.25, 0.50,
            ],
            11,
            &[1, 8, 4, 10, 6, 9, 2, 5, 0, 3, 7],
        ),
        (
            &[0.00, 0.50, 0.00, 0.25, 0.50, 0.50, 0.00],
            5,
            &[4, 1, 5, 3, 0],
        ),
        (
            &[0.25, 0.25, 0.75, 0.50, 0.00, 0.50, 0.25, 0.25, 0.25, 0.75],
            8,
            &[9, 2, 3, 5, 7, 0, 1, 8],
        ),
        (&[0.50, 0.25, 0.25, 0.00, 0.00, 0.25], 2, &[0, 1]),
        (
            &[
                0.25, 0.75, 0.75, 0.50, 0.25, 0.00, 0.50, 0.75, 0.75, 0.50, 0.25,
            ],
            2,
            &[2, 1],
        ),
        (&[0.75, 0.00, 0.00, 0.25, 0.75, 0.00], 3, &[0, 4, 3]),
        (&[0.00, 0.25, 0.75, 0.25, 0.50], 2, &[2, 4]),
        (&[0.00, 0.25, 0.75, 0.50], 2, &[2, 3]),
        (
            &[
                0.50, 0.25, 0.00, 0.50, 0.25, 0.75, 0.75, 0.50, 0.75, 0.25, 0.00, 0.75,
            ],
            4,
            &[8, 5, 11, 6],
        ),
        (&[0.75, 0.50, 0.00, 0.00, 0.50, 0.50], 5, &[0, 5, 1, 4, 3]),
        (
            &[0.75, 0.75, 0.25, 0.75, 0.75, 0.00, 0.50, 0.50, 0.50, 0.00],
            9,
            &[1, 4, 0, 3, 7, 8, 6, 2, 5],
        ),
    ];

    #[test]
    fn partial_sort_equals_libstdcxx() {
        for &(values, k, want) in LIBSTDCXX {
            let mut idx = vec![0; values.len()];
            decreasing_partial_arg_sort(values, k, &mut idx);
            assert_eq!(&idx[..k], want, "{values:?} k {k}");
        }
    }

    #[test]
    fn partial_sort_matches_libstdcxx_on_ties() {
        // Hand-traced through libstdc++'s heap select + sort_heap: with all values tied, the
        // first k positions come out in the order the heap leaves them, not index order.
        let v = [1.0f32; 5];
        let mut idx = [0usize; 5];
        decreasing_partial_arg_sort(&v, 3, &mut idx);
        let mut first = idx[..3].to_vec();
        first.sort_unstable();
        assert_eq!(first, vec![0, 1, 2]);
        // Distinct values: the k largest, decreasing.
        let v = [0.1f32, 0.9, 0.3, 0.7, 0.5];
        decreasing_partial_arg_sort(&v, 3, &mut idx);
        assert_eq!(&idx[..3], &[1, 3, 4]);
        decreasing_partial_arg_sort(&v, 1, &mut idx);
        assert_eq!(idx[0], 1);
        decreasing_partial_arg_sort(&v, 5, &mut idx);
        assert_eq!(idx, [1, 3, 4, 2, 0]);
    }

    #[test]
    fn stable_sort_keeps_ties_in_order() {
        let keys = [0.5f32, 0.9, 0.5, 0.9, 0.1, 0.5];
        let mut order: Vec<usize> = (0..keys.len()).collect();
        let mut buf = Vec::with_capacity(keys.len());
        stable_sort_decreasing(&keys, &mut order, &mut buf);
        assert_eq!(order, vec![1, 3, 0, 2, 5, 4]);
    }

    #[test]
    fn iou_of_identical_and_disjoint_boxes() {
        let d = [
            0.0f32, 0.0, 1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0,
        ];
        assert_eq!(iou(&d, 0, 1), 1.0);
        assert_eq!(iou(&d, 0, 2), 0.0);
        assert!(boxes_valid(&d));
        assert!(!boxes_valid(&[1.0, 0.0, 0.0, 1.0]));
    }
}
