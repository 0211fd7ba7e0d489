//! Parsers for counts, rates and memory sizes on the command line.
//!
//! Counts accept `1000000`, `1_000_000` and `1e6`; memory accepts bits (`8388608`,
//! `8Mib`) or bytes (`1MiB`, `2GB`): a lowercase `b` is bits, an uppercase `B` bytes;
//! `k M G T` are powers of 1000, `Ki Mi Gi Ti` powers of 1024.

/// Largest count accepted (2^53: every integer up to it is exact in `f64`).
pub const COUNT_MAX: u64 = 1 << 53;

/// Parses a whole non-negative count.
///
/// # Errors
/// A message giving the allowed forms and range.
pub fn parse_count(s: &str) -> Result<u64, String> {
    count_with(
        s,
        "a whole number from 0 to 2^53, e.g. 1000000, 1_000_000 or 1e6",
    )
}

/// Parses a hash count (`--hashes`, `--max-hashes`, `--reset-hashes`, ...): a malformed
/// value's message states the flag's own range, 1 to 64. Whole numbers outside it reach
/// the model, whose error names the flag, the value and the same range.
///
/// # Errors
/// Not a whole non-negative number.
pub fn parse_hashes(s: &str) -> Result<u64, String> {
    count_with(s, "a whole number from 1 to 64")
}

/// Parses `--threads`: as [`parse_hashes`], with the flag's range 1 to 1024
/// (checked by `bfopt::configure`).
///
/// # Errors
/// Not a whole non-negative number.
pub fn parse_threads(s: &str) -> Result<u64, String> {
    count_with(s, "a whole number from 1 to 1024")
}

/// [`parse_count`] with the flag's own `allowed` text in its messages (issue 16: a
/// malformed `--threads` quoted the parser's range, 0 to 2^53, not the flag's).
fn count_with(s: &str, allowed: &str) -> Result<u64, String> {
    let clean = s.trim().replace('_', "");
    if clean.is_empty() {
        return Err(format!("empty (allowed: {allowed})"));
    }
    if clean.bytes().all(|b| b.is_ascii_digit()) {
        return match clean.parse::<u64>() {
            Ok(v) if v <= COUNT_MAX => Ok(v),
            _ => Err(format!("too large (allowed: {allowed})")),
        };
    }
    match clean.parse::<f64>() {
        Ok(v) if v.is_nan() || v.is_infinite() => Err(format!("not finite (allowed: {allowed})")),
        Ok(v) if v < 0.0 => Err(format!("negative (allowed: {allowed})")),
        Ok(v) if v.fract() != 0.0 => Err(format!("not a whole number (allowed: {allowed})")),
        Ok(v) if v > COUNT_MAX as f64 => Err(format!("too large (allowed: {allowed})")),
        Ok(v) => Ok(v as u64),
        Err(_) => Err(format!("not a number (allowed: {allowed})")),
    }
}

/// Parses a finite real number (`0.01`, `1e-9`, `1_000.5`); ranges are checked by the
/// library constructors, which name the parameter.
///
/// Subnormal numbers (0 < |v| < 2.2e-308) are refused: no flag means them, and they
/// overflow when inverted (issue 10: `posterior gbf --px 1e-310` divided by 1 − (1 − px)
/// = 1e-310 and panicked on a NaN posterior).
///
/// # Errors
/// Not a number, NaN, infinite or subnormal.
pub fn parse_real(s: &str) -> Result<f64, String> {
    match s.trim().replace('_', "").parse::<f64>() {
        Ok(v) if v != 0.0 && v.abs() < f64::MIN_POSITIVE => Err(
            "too close to 0 (allowed: 0 or a magnitude >= 2.2e-308, e.g. 0.01 or 1e-6)".to_string(),
        ),
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err("not finite (allowed: a finite number, e.g. 0.01 or 1e-6)".to_string()),
        Err(_) => Err("not a number (allowed: a finite number, e.g. 0.01 or 1e-6)".to_string()),
    }
}

/// Parses a rate `0 <= r < 1` (a duplicate share): for flags that a run may not read,
/// so a bad value is still reported (issue 10).
///
/// # Errors
/// Not a number, or outside `[0, 1)`.
pub fn parse_rate(s: &str) -> Result<f64, String> {
    match parse_real(s) {
        Ok(r) if (0.0..1.0).contains(&r) => Ok(r),
        Ok(_) => Err("out of range (allowed: 0 <= rate < 1)".to_string()),
        Err(e) => Err(format!("{e}; allowed: 0 <= rate < 1")),
    }
}

/// Parses a memory size into bits.
///
/// # Errors
/// A malformed number or unknown unit, or a size beyond 2^53 bits.
pub fn parse_bits(s: &str) -> Result<u64, String> {
    let allowed = "a size in bits or with a unit: 8388608, 8Mb, 1MiB, 2GB (b = bits, B = bytes; k M G T = 1000^n, Ki Mi Gi Ti = 1024^n)";
    let t = s.trim().replace('_', "");
    let split = t
        .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let scale: f64 = match unit {
        "" | "b" | "bit" | "bits" => 1.0,
        "B" => 8.0,
        // Issue 10 (found by the cli_parse fuzzer): `1€` split the unit inside a
        // multi-byte character and panicked.
        _ if !unit.is_ascii() => {
            return Err(format!("unknown unit {unit:?} (allowed: {allowed})"));
        }
        _ => {
            let (prefix, base) = unit.split_at(unit.len() - 1);
            let per = match base {
                "b" => 1.0,
                "B" => 8.0,
                _ => return Err(format!("unknown unit {unit:?} (allowed: {allowed})")),
            };
            let mult = match prefix {
                "k" | "K" => 1e3,
                "M" => 1e6,
                "G" => 1e9,
                "T" => 1e12,
                "Ki" => 1024.0,
                "Mi" => 1024.0 * 1024.0,
                "Gi" => 1024.0f64.powi(3),
                "Ti" => 1024.0f64.powi(4),
                _ => return Err(format!("unknown unit {unit:?} (allowed: {allowed})")),
            };
            per * mult
        }
    };
    let value: f64 = num
        .parse()
        .map_err(|_| format!("not a number (allowed: {allowed})"))?;
    let bits = value * scale;
    if !bits.is_finite() || bits < 0.0 {
        return Err(format!("not a finite size >= 0 (allowed: {allowed})"));
    }
    if bits.fract() != 0.0 {
        return Err(format!("not a whole number of bits (allowed: {allowed})"));
    }
    if bits > COUNT_MAX as f64 {
        return Err(format!("too large (allowed: at most 2^53 bits; {allowed})"));
    }
    Ok(bits as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts() {
        assert_eq!(parse_count("1e6"), Ok(1_000_000));
        assert_eq!(parse_count("1_000_000"), Ok(1_000_000));
        assert_eq!(parse_count("2.5e3"), Ok(2500));
        assert_eq!(parse_count("0"), Ok(0));
        for bad in [
            "",
            "-1",
            "1.5",
            "abc",
            "nan",
            "inf",
            "1e300",
            "99999999999999999999",
        ] {
            assert!(parse_count(bad).is_err(), "{bad}");
        }
        assert!(parse_count("1.5").unwrap_err().contains("allowed"));
    }

    #[test]
    fn reals() {
        assert_eq!(parse_real("0.01"), Ok(0.01));
        assert_eq!(parse_real("1e-9"), Ok(1e-9));
        assert!(parse_real("NaN").is_err());
        assert!(parse_real("inf").is_err());
        assert!(parse_real("0.0.1").is_err());
        assert!(parse_real("1e-310").unwrap_err().contains("too close to 0"));
        assert_eq!(parse_real("-0"), Ok(0.0));
        assert_eq!(parse_real("1e-300"), Ok(1e-300));
        assert_eq!(parse_rate("0"), Ok(0.0));
        assert_eq!(parse_rate("0.7"), Ok(0.7));
        for bad in ["1", "-0.1", "nan", "2"] {
            assert!(
                parse_rate(bad).unwrap_err().contains("0 <= rate < 1"),
                "{bad}"
            );
        }
    }

    #[test]
    fn memory() {
        assert_eq!(parse_bits("8Mb"), Ok(8_000_000));
        assert_eq!(parse_bits("16MiB"), Ok(16 * 1024 * 1024 * 8));
        assert_eq!(parse_bits("1KB"), Ok(8000));
        assert_eq!(parse_bits("1Kib"), Ok(1024));
        assert_eq!(parse_bits("4096"), Ok(4096));
        assert_eq!(parse_bits("1e6"), Ok(1_000_000));
        assert_eq!(parse_bits("2B"), Ok(16));
        for bad in [
            "8Xb",
            "MiB",
            "-1MB",
            "0.5b",
            "1e30GB",
            "12 parsecs",
            "1€",
            "1Mé",
            "2kµb",
            "3Мb",
        ] {
            assert!(parse_bits(bad).is_err(), "{bad}");
        }
    }
}
