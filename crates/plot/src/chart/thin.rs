//! Point thinning: keep one point per pixel cell.
//!
//! A time-sequence chart of a large transfer has far more packets than
//! pixels; drawing every dot makes SVGs of megabytes without changing a
//! pixel. Keeping the first point of each occupied cell is lossless at the
//! chart's resolution.

use std::collections::HashSet;

/// Keeps the first point of each `cell_px` × `cell_px` cell when the data
/// range `x` × `y` is mapped onto `width_px` × `height_px`.
pub fn thin_points(
    points: &[(f64, f64)],
    x: (f64, f64),
    y: (f64, f64),
    width_px: u32,
    height_px: u32,
    cell_px: f64,
) -> Vec<(f64, f64)> {
    let sx = f64::from(width_px) / (x.1 - x.0).max(f64::MIN_POSITIVE) / cell_px;
    let sy = f64::from(height_px) / (y.1 - y.0).max(f64::MIN_POSITIVE) / cell_px;
    let mut seen = HashSet::new();
    points
        .iter()
        .copied()
        .filter(|&(px, py)| {
            let cell = (
                ((px - x.0) * sx).floor() as i64,
                ((py - y.0) * sy).floor() as i64,
            );
            seen.insert(cell)
        })
        .collect()
}

/// Thins a step line (sorted by x) by keeping, per pixel column, the first,
/// the lowest, the highest and the last point, so that peaks survive.
pub fn thin_steps(points: &[(f64, f64)], x: (f64, f64), width_px: u32) -> Vec<(f64, f64)> {
    if points.len() <= 4 * width_px as usize {
        return points.to_vec();
    }
    let sx = f64::from(width_px) / (x.1 - x.0).max(f64::MIN_POSITIVE);
    let mut out = Vec::new();
    let mut i = 0;
    while i < points.len() {
        let col = ((points[i].0 - x.0) * sx).floor() as i64;
        let mut j = i;
        while j < points.len() && ((points[j].0 - x.0) * sx).floor() as i64 == col {
            j += 1;
        }
        let run = &points[i..j];
        let lo = run.iter().copied().min_by(|a, b| a.1.total_cmp(&b.1));
        let hi = run.iter().copied().max_by(|a, b| a.1.total_cmp(&b.1));
        let mut keep: Vec<(f64, f64)> = [Some(run[0]), lo, hi, Some(run[run.len() - 1])]
            .into_iter()
            .flatten()
            .collect();
        keep.sort_by(|a, b| a.0.total_cmp(&b.0));
        keep.dedup();
        out.extend(keep);
        i = j;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_point_per_cell() {
        // 100 × 100 data units on 10 × 10 px: cells of 10 units.
        let pts = [
            (0.0, 0.0),
            (5.0, 5.0),
            (9.9, 0.1),
            (10.0, 0.0),
            (55.0, 99.0),
        ];
        let kept = thin_points(&pts, (0.0, 100.0), (0.0, 100.0), 10, 10, 1.0);
        assert_eq!(kept, vec![(0.0, 0.0), (10.0, 0.0), (55.0, 99.0)]);
    }

    #[test]
    fn step_thinning_keeps_extremes() {
        let pts: Vec<(f64, f64)> = (0..1000)
            .map(|i| (f64::from(i) / 1000.0, if i == 503 { 50.0 } else { 1.0 }))
            .collect();
        let kept = thin_steps(&pts, (0.0, 1.0), 10);
        assert!(kept.len() <= 40);
        assert!(kept.contains(&(0.503, 50.0)));
        assert_eq!(kept.last(), pts.last());
    }
}
