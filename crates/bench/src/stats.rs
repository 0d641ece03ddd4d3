//! Median and ratio arithmetic. Every ratio is Basalt / MariaDB; whether a ratio
//! above 1 is good depends on the metric (`Better`).

/// Which direction of a metric is good.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Better {
    /// Throughput (QPS, commits/s): a ratio above 1 means Basalt is faster.
    Higher,
    /// Response time, latency, instructions: a ratio below 1 means Basalt is faster.
    Lower,
}

impl Better {
    pub fn describe(self) -> &'static str {
        match self {
            Better::Higher => "higher is better",
            Better::Lower => "lower is better",
        }
    }
}

/// The median of `xs` (mean of the middle two for an even count); `None` when
/// empty. NaNs are ignored.
pub fn median(xs: &[f64]) -> Option<f64> {
    let mut v: Vec<f64> = xs.iter().copied().filter(|x| !x.is_nan()).collect();
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// Basalt / MariaDB, or `None` when either is missing or MariaDB's is not positive.
pub fn ratio(basalt: Option<f64>, mariadb: Option<f64>) -> Option<f64> {
    let (b, m) = (basalt?, mariadb?);
    (m > 0.0 && b.is_finite() && m.is_finite()).then(|| b / m)
}

/// How many times faster Basalt is (above 1) or slower (below 1), whatever the
/// metric's direction: the ratio itself for throughput, its inverse for times.
pub fn speedup(ratio: f64, better: Better) -> f64 {
    match better {
        Better::Higher => ratio,
        Better::Lower => {
            if ratio > 0.0 {
                1.0 / ratio
            } else {
                f64::INFINITY
            }
        }
    }
}

/// "faster" / "slower" / "parity" (within 2%) for a ratio of a metric.
pub fn verdict(ratio: f64, better: Better) -> &'static str {
    let s = speedup(ratio, better);
    if (0.98..=1.02).contains(&s) {
        "parity"
    } else if s > 1.0 {
        "Basalt faster"
    } else {
        "Basalt slower"
    }
}

/// The value at quantile `q` (0..=1) of an already sorted slice, nearest rank.
pub fn quantile_sorted(sorted: &[f64], q: f64) -> Option<f64> {
    if sorted.is_empty() {
        return None;
    }
    let rank = (q.clamp(0.0, 1.0) * sorted.len() as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, sorted.len()) - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_odd_even_empty() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0]), Some(2.5));
        assert_eq!(median(&[]), None);
        assert_eq!(median(&[f64::NAN, 5.0]), Some(5.0));
    }

    #[test]
    fn ratio_is_basalt_over_mariadb() {
        assert_eq!(ratio(Some(2.0), Some(4.0)), Some(0.5));
        assert_eq!(ratio(None, Some(4.0)), None);
        assert_eq!(ratio(Some(1.0), Some(0.0)), None);
    }

    #[test]
    fn speedup_and_verdict_follow_direction() {
        // Half the response time: twice as fast.
        assert_eq!(speedup(0.5, Better::Lower), 2.0);
        assert_eq!(verdict(0.5, Better::Lower), "Basalt faster");
        // Half the throughput: slower.
        assert_eq!(speedup(0.5, Better::Higher), 0.5);
        assert_eq!(verdict(0.5, Better::Higher), "Basalt slower");
        assert_eq!(verdict(1.01, Better::Higher), "parity");
    }

    #[test]
    fn quantiles() {
        let v = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        assert_eq!(quantile_sorted(&v, 0.5), Some(5.0));
        assert_eq!(quantile_sorted(&v, 0.99), Some(10.0));
        assert_eq!(quantile_sorted(&v, 0.0), Some(1.0));
        assert_eq!(quantile_sorted(&[], 0.5), None);
    }
}
