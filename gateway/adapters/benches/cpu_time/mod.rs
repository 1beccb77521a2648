//! A criterion measurement in CPU time of the benchmarking thread rather than wall time: on
//! shared machines, time a benchmark spends descheduled is not the cost of the code. Throughput
//! is shown as CPU time per element (per stream event).

use criterion::Throughput;
use criterion::measurement::{Measurement, ValueFormatter};

/// CPU time of the calling thread (`CLOCK_THREAD_CPUTIME_ID`), in nanoseconds.
pub struct ThreadCpu;

fn thread_cpu_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec and the clock id is a Linux constant.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    if rc != 0 {
        return 0;
    }
    (ts.tv_sec as u64) * 1_000_000_000 + ts.tv_nsec as u64
}

impl Measurement for ThreadCpu {
    type Intermediate = u64;
    type Value = u64;
    fn start(&self) -> u64 {
        thread_cpu_ns()
    }
    fn end(&self, start: u64) -> u64 {
        thread_cpu_ns().saturating_sub(start)
    }
    fn add(&self, a: &u64, b: &u64) -> u64 {
        a + b
    }
    fn zero(&self) -> u64 {
        0
    }
    fn to_f64(&self, v: &u64) -> f64 {
        *v as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        &CpuFormatter
    }
}

/// CPU time in ns/µs/ms; a throughput as CPU time per element (per stream event).
pub struct CpuFormatter;

impl ValueFormatter for CpuFormatter {
    fn scale_values(&self, typical: f64, values: &mut [f64]) -> &'static str {
        let (factor, unit) = match typical {
            t if t < 1e3 => (1.0, "ns CPU"),
            t if t < 1e6 => (1e-3, "µs CPU"),
            _ => (1e-6, "ms CPU"),
        };
        values.iter_mut().for_each(|v| *v *= factor);
        unit
    }

    fn scale_throughputs(&self, typical: f64, t: &Throughput, values: &mut [f64]) -> &'static str {
        let n = match *t {
            Throughput::Elements(n) | Throughput::ElementsAndBytes { elements: n, .. } => n,
            Throughput::Bytes(n) | Throughput::BytesDecimal(n) | Throughput::Bits(n) => n,
        }
        .max(1) as f64;
        let (factor, unit) = if typical / n < 1e3 {
            (1.0, "ns CPU/elem")
        } else {
            (1e-3, "µs CPU/elem")
        };
        values.iter_mut().for_each(|v| *v *= factor / n);
        unit
    }

    fn scale_for_machines(&self, _values: &mut [f64]) -> &'static str {
        "ns"
    }
}
