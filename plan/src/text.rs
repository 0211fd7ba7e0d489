//! Numbers in the planner's sentences (notes, reasons, exclusions): short, and never a
//! string of hundreds of zeros.

/// A probability to 3 significant digits: `0.0100`, `0.000123` → `1.23e-4`, `0`.
pub fn prob(x: f64) -> String {
    if x == 0.0 {
        "0".into()
    } else if x.abs() < 1e-3 {
        format!("{x:.2e}")
    } else {
        let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
        format!("{x:.digits$}")
    }
}

/// A ratio or measure to 3 significant digits (`15.9`, `1.05`, `0.143`); whole
/// numbers below 10^6 as they are (`10`, `7`).
pub fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    if x.fract() == 0.0 && x.abs() < 1e6 {
        return format!("{x}");
    }
    if x.abs() >= 1e6 || x.abs() < 1e-3 {
        return format!("{x:.2e}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).clamp(0, 6) as usize;
    format!("{x:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiny_and_ordinary_numbers() {
        assert_eq!(prob(0.01), "0.0100");
        assert_eq!(prob(0.25), "0.250");
        assert_eq!(prob(1e-300), "1.00e-300");
        assert_eq!(prob(0.0), "0");
        assert_eq!(num(15.94), "15.9");
        assert_eq!(num(2.049), "2.05");
        assert_eq!(num(0.1431), "0.143");
        assert_eq!(num(10.0), "10");
        assert_eq!(num(16.32), "16.3");
        assert!(prob(1e-300).len() < 12);
    }
}
