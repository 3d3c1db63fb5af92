//! The one wall clock of the library: milliseconds from an arbitrary origin, for what is
//! timed or bounded in time (`--auto-time-limit`, the page's profiles). Natively
//! [`std::time::Instant`]; in the page's build (`wasm32` with the `wasm` feature)
//! `performance.now()`, which windows, workers and Node all have. A `wasm32` build without the
//! `wasm` feature has no clock: [`now_ms`] is NaN there, so no time limit is ever reached.

/// Milliseconds since an origin fixed for the process (natively: the first call).
#[cfg(not(target_arch = "wasm32"))]
pub fn now_ms() -> f64 {
    use std::sync::OnceLock;
    use std::time::Instant;
    static ORIGIN: OnceLock<Instant> = OnceLock::new();
    ORIGIN.get_or_init(Instant::now).elapsed().as_secs_f64() * 1e3
}

/// Milliseconds since the page's time origin (`performance.now()`).
#[cfg(all(target_arch = "wasm32", feature = "wasm"))]
pub fn now_ms() -> f64 {
    use wasm_bindgen::prelude::*;
    #[wasm_bindgen]
    extern "C" {
        /// `performance.now()` (window, worker and Node alike).
        #[wasm_bindgen(js_namespace = performance, js_name = now)]
        fn performance_now() -> f64;
    }
    performance_now()
}

/// No clock without the `wasm` feature on `wasm32`: NaN, which no deadline compares past.
#[cfg(all(target_arch = "wasm32", not(feature = "wasm")))]
pub fn now_ms() -> f64 {
    f64::NAN
}

/// A point in [`now_ms`] time after which work that can stop early stops.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Deadline(f64);

impl Deadline {
    /// `seconds` from now (0 or less: already passed).
    pub fn after(seconds: f64) -> Self {
        Deadline(now_ms() + seconds * 1e3)
    }

    /// The deadline at `ms` in [`now_ms`] time.
    pub fn at(ms: f64) -> Self {
        Deadline(ms)
    }

    /// The deadline in [`now_ms`] time.
    pub fn ms(self) -> f64 {
        self.0
    }

    /// Seconds left until it passes (0 once it has; NaN without a clock).
    pub fn seconds_left(self) -> f64 {
        ((self.0 - now_ms()) / 1e3).max(0.0)
    }

    /// Whether it has passed (never, without a clock).
    pub fn passed(self) -> bool {
        now_ms() >= self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_deadline_passes_once_its_time_comes() {
        assert!(Deadline::after(0.0).passed());
        assert!(Deadline::after(-1.0).passed());
        assert!(!Deadline::after(3600.0).passed());
        assert_eq!(Deadline::after(-1.0).seconds_left(), 0.0);
        let left = Deadline::after(3600.0).seconds_left();
        assert!(left > 3590.0 && left <= 3600.0, "{left}");
        let a = now_ms();
        let b = now_ms();
        assert!(b >= a, "{a} then {b}");
    }
}
