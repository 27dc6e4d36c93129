//! The two-sample Kolmogorov-Smirnov test: are two samples of times drawn
//! from the same distribution? The probe ([`crate::probe`]) uses it on the
//! arrival times of a step into a hidden minefield that has no effect and
//! of the same step into an empty hex (issue 16, G3).

use serde::Serialize;

/// The test's result.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct KsTest {
    /// Size of the first sample.
    pub n: usize,
    /// Size of the second sample.
    pub m: usize,
    /// The statistic: the largest distance between the two empirical
    /// distribution functions (0 to 1).
    pub d: f64,
    /// The probability of a distance at least `d` if both samples come
    /// from one distribution (the asymptotic Kolmogorov distribution;
    /// good for n, m of a few dozen and up). Below 0.01 the two are
    /// distinguishable.
    pub p_value: f64,
}

/// The two-sample test of `a` against `b` (`None` when either is empty).
pub fn two_sample(a: &[f64], b: &[f64]) -> Option<KsTest> {
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (n, m) = (a.len(), b.len());
    let (mut i, mut j, mut d) = (0usize, 0usize, 0f64);
    while i < n && j < m {
        // Step past every value equal to the smallest one left in either.
        let x = a[i].min(b[j]);
        while i < n && a[i] <= x {
            i += 1;
        }
        while j < m && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / n as f64 - j as f64 / m as f64).abs());
    }
    let ne = (n * m) as f64 / (n + m) as f64;
    let lambda = (ne.sqrt() + 0.12 + 0.11 / ne.sqrt()) * d;
    Some(KsTest {
        n,
        m,
        d,
        p_value: kolmogorov_q(lambda),
    })
}

/// Q(lambda) = 2 sum_{k>=1} (-1)^(k-1) exp(-2 k^2 lambda^2), the Kolmogorov
/// distribution's tail; 1 at 0.
fn kolmogorov_q(lambda: f64) -> f64 {
    if lambda < 1e-3 {
        return 1.0;
    }
    let mut sum = 0.0;
    let mut sign = 1.0;
    for k in 1..=100 {
        let kf = k as f64;
        let term = sign * 2.0 * (-2.0 * kf * kf * lambda * lambda).exp();
        sum += term;
        if term.abs() < 1e-12 {
            break;
        }
        sign = -sign;
    }
    sum.clamp(0.0, 1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sample_against_itself_is_not_distinguished() {
        let a: Vec<f64> = (0..200).map(|i| (i * 7919 % 1000) as f64).collect();
        let t = two_sample(&a, &a).unwrap();
        assert_eq!(t.d, 0.0);
        assert_eq!(t.p_value, 1.0);
    }

    #[test]
    fn disjoint_samples_are_distinguished() {
        let a: Vec<f64> = (0..100).map(f64::from).collect();
        let b: Vec<f64> = (1000..1100).map(f64::from).collect();
        let t = two_sample(&a, &b).unwrap();
        assert_eq!(t.d, 1.0);
        assert!(t.p_value < 1e-10, "{t:?}");
    }

    #[test]
    fn interleaved_samples_are_not_distinguished() {
        // Evens against odds: the same distribution, shifted by one.
        let a: Vec<f64> = (0..300).map(|i| f64::from(2 * i)).collect();
        let b: Vec<f64> = (0..300).map(|i| f64::from(2 * i + 1)).collect();
        let t = two_sample(&a, &b).unwrap();
        assert!(t.d <= 1.0 / 300.0 + 1e-12, "{t:?}");
        assert!(t.p_value > 0.99, "{t:?}");
    }

    #[test]
    fn a_known_value() {
        // n = m = 50, D = 0.3: lambda = (5 + 0.12 + 0.022) * 0.3 = 1.5426,
        // Q(1.5426) ~= 0.0172 (tables of the Kolmogorov distribution).
        let a: Vec<f64> = (0..50).map(f64::from).collect();
        let b: Vec<f64> = (15..65).map(f64::from).collect();
        let t = two_sample(&a, &b).unwrap();
        assert!((t.d - 0.3).abs() < 1e-12, "{t:?}");
        assert!((t.p_value - 0.0172).abs() < 0.001, "{t:?}");
        assert!(two_sample(&[], &a).is_none());
    }
}
