//! A criterion [`Measurement`] of the benchmark thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`) instead of wall time: on a shared machine wall time mostly
//! measures how long the thread waited for a core. Included by the benches that report
//! per-core rates (`#[path = "common/cpu_time.rs"] mod cpu_time;`).

use criterion::measurement::{Measurement, ValueFormatter};
use criterion::Throughput;
use std::time::Duration;

/// The CPU time of the benchmark thread.
pub struct CpuTime;

fn thread_cpu_ns() -> u64 {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    t.tv_sec as u64 * 1_000_000_000 + t.tv_nsec as u64
}

impl Measurement for CpuTime {
    type Intermediate = u64;
    type Value = Duration;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> Duration {
        Duration::from_nanos(thread_cpu_ns() - start)
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, v: &Duration) -> f64 {
        v.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuTime
    }
}

/// Nanoseconds as ms, throughput in Melem/s (the only throughput used here).
impl ValueFormatter for CpuTime {
    fn scale_values(&self, _typical: f64, values: &mut [f64]) -> &'static str {
        values.iter_mut().for_each(|v| *v *= 1e-6);
        "ms (CPU)"
    }
    fn scale_throughputs(&self, _typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let per_iteration = match *t {
            Throughput::Elements(n)
            | Throughput::Bytes(n)
            | Throughput::BytesDecimal(n)
            | Throughput::Bits(n) => n,
        };
        values
            .iter_mut()
            .for_each(|v| *v = per_iteration as f64 * 1e3 / *v);
        "Melem/s (CPU)"
    }
    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}
