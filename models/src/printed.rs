//! Comparing computed values with numbers printed in a paper, at the printed precision.
//!
//! Papers round (or truncate) their tables; a test vector is the printed *string*, and a
//! computed value matches it when it lies within half a unit (rounding) or one unit
//! (truncation, toward zero) of the last printed digit.

/// How a paper turned its exact values into the printed digits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Printing {
    /// Rounded to nearest: matches when `|got − printed| ≤ ½·10^(−decimals)`.
    Rounded,
    /// Truncated toward zero: matches when `printed ≤ got < printed + 10^(−decimals)`
    /// (for positive values).
    Truncated,
}

/// Number of digits after the decimal point in a printed number (`"0.0625"` → 4).
pub fn decimals(printed: &str) -> u32 {
    let mantissa = printed.split(['e', 'E']).next().unwrap_or(printed);
    mantissa
        .split_once('.')
        .map_or(0, |(_, frac)| frac.len() as u32)
}

/// Whether `got` prints as `printed` under `how`; `false` when `printed` does not parse.
///
/// A small slack of 1e-12 relative absorbs binary-to-decimal representation error.
pub fn matches_printed(got: f64, printed: &str, how: Printing) -> bool {
    let Ok(value) = printed.trim().parse::<f64>() else {
        return false;
    };
    let exp = printed
        .split_once(['e', 'E'])
        .and_then(|(_, e)| e.parse::<i32>().ok())
        .unwrap_or(0);
    let unit = 10f64.powi(exp - decimals(printed) as i32);
    let slack = 1e-12 * value.abs().max(unit);
    match how {
        Printing::Rounded => (got - value).abs() <= 0.5 * unit + slack,
        Printing::Truncated => got + slack >= value && got < value + unit + slack,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounded_and_truncated() {
        assert!(matches_printed(5.7708, "5.77", Printing::Rounded));
        assert!(matches_printed(5.7708, "5.77", Printing::Truncated));
        assert!(!matches_printed(10.0989, "10.09", Printing::Rounded));
        assert!(matches_printed(10.0989, "10.09", Printing::Truncated));
        assert!(!matches_printed(10.0889, "10.09", Printing::Truncated));
        assert!(matches_printed(
            0.000_061_035_156_25,
            "0.0000610351",
            Printing::Truncated
        ));
        assert!(matches_printed(1.2e-5, "1.2e-5", Printing::Rounded));
        assert!(!matches_printed(1.0, "abc", Printing::Rounded));
        assert_eq!(decimals("17"), 0);
    }
}
