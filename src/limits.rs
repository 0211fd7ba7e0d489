//! Limits the CLI enforces before it starts work the machine cannot finish.
//!
//! The models accept sizes up to 2^40 bits and more, because they only compute with
//! them. A simulation allocates the reference filter for real, once per epoch in
//! flight, so `bfopt simulate classic --bits 1e12` used to abort with "memory
//! allocation of 125000000000 bytes failed" (exit 134, issue 10). It now stops before
//! starting with exit 2 and names the flag, the value and the limit.

use crate::cli::SimulateFamily;
use crate::exit::CliError;

/// Largest reference filter a simulation builds: 2^33 bits (1 GiB) per epoch in flight.
pub const SIM_FILTER_BITS_MAX: u64 = 1 << 33;

/// Checks that the reference filter of a `simulate` run fits [`SIM_FILTER_BITS_MAX`].
///
/// # Errors
/// [`CliError::Invalid`] naming the flag that sets the size, its value and the limit.
pub fn simulate_memory(family: &SimulateFamily) -> Result<(), CliError> {
    let (flag, value, bits) = match family {
        SimulateFamily::Classic(a) => ("--bits", a.filter.bits, u128::from(a.filter.bits)),
        SimulateFamily::Rbf(a) => ("--bits", a.filter.bits, u128::from(a.filter.bits)),
        SimulateFamily::Gbf(a) => ("--bits", a.filter.bits, u128::from(a.filter.bits)),
        SimulateFamily::Btbf(a) => (
            "--timers",
            a.filter.timers,
            // Timers are packed at bpt bits but rounded up to bytes in places.
            u128::from(a.filter.timers) * u128::from(a.filter.bits_per_timer.max(8)),
        ),
        SimulateFamily::Apbf(a) => {
            let Ok(p) = a.filter.params() else {
                return Ok(()); // the runner reports the bad parameter itself
            };
            let value = a.filter.window.or(a.filter.slice_bits).unwrap_or(0);
            let flag = if a.filter.window.is_some() {
                "--window"
            } else {
                "--slice-bits"
            };
            (flag, value, u128::from(p.total_bits().unwrap_or(0)))
        }
        SimulateFamily::Apbbf(a) => {
            let Ok(p) = a.filter.params() else {
                return Ok(());
            };
            let value = a.filter.window.unwrap_or(0);
            ("--window", value, u128::from(p.total_bits().unwrap_or(0)))
        }
        SimulateFamily::Scalable(a) => {
            let Ok(x) = a
                .filter
                .params()
                .map_err(|_| ())
                .and_then(|p| p.chain(a.filter.items).map_err(|_| ()))
            else {
                return Ok(()); // the runner reports the bad parameter itself
            };
            let bits = x.links().iter().map(|l| u128::from(l.m)).sum();
            ("--items", a.filter.items, bits)
        }
        SimulateFamily::Pbf(a) => match a.bits {
            Some(b) => ("--bits", b, u128::from(b)),
            None => return Ok(()),
        },
        // Cells are bytes; the stable runners bound --cells through --age/--steps.
        SimulateFamily::Sbf(a) => ("--cells", a.filter.cells, u128::from(a.filter.cells) * 8),
        SimulateFamily::Ibf(a) => (
            "--cells",
            a.filter.filter.cells,
            u128::from(a.filter.filter.cells) * 8,
        ),
        // xorf's keys (8 bytes each) dominate its fingerprints (about 1.125 f bits a key).
        SimulateFamily::Fuse(a) => (
            "--items",
            a.filter.items,
            u128::from(a.filter.items) * 64 * 2,
        ),
        SimulateFamily::Cuckoo(a) => (
            "--buckets",
            a.filter.buckets,
            // Slots are u32 words.
            u128::from(a.filter.buckets) * u128::from(a.filter.bucket_size) * 32,
        ),
        SimulateFamily::Counting(a) => (
            "--counters",
            a.filter.counters,
            // Packed counters plus one overflow flag (a byte) per counter.
            u128::from(a.filter.counters) * (u128::from(a.filter.counter_bits) + 8),
        ),
    };
    if bits > u128::from(SIM_FILTER_BITS_MAX) {
        return Err(CliError::invalid(
            flag,
            value,
            format!(
                "a simulated filter of at most 2^33 bits (1 GiB); this one needs {bits} bits \
                 (use `bfopt model` for larger filters)"
            ),
        ));
    }
    Ok(())
}
