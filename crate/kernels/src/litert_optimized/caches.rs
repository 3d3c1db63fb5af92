//! The CPU cache sizes Eigen blocks its float products by, which TF's calibration depends on.
//!
//! Eigen (`Memory.h`, `queryCacheSizes`) reads the data cache sizes once with `cpuid` and
//! `GeneralBlockPanelKernel.h` cuts a large product's reduction axis into chunks (`kc`) chosen
//! from them, so the float sum of a convolution with a long reduction (a few hundred products
//! and more) is added in a different order on CPUs whose caches differ. TF's min/max of such a
//! convolution's output, and hence a scale's last bits, is the CPU's: on the same model and
//! samples, TF 2.21 on a 2-core AMD EPYC (32 KiB L1d, 1 MiB L2, 320 MiB L3 as `cpuid` reports
//! them) and on an Intel Xeon (48 KiB, 2 MiB, 480 MiB) gave 39 of iris_landmark's 385 scales
//! that differ by 1–2 ULP. To equal TF's scales, calibration reproduces the caches of the
//! machine TF ran on: [`CacheSizes::host`] (the native CLI's default, read as Eigen reads
//! them), [`CacheSizes::GOLDEN`] (the machine the checked-in goldens were made on, the
//! library's and the page's default: a browser cannot read `cpuid`), or sizes given by hand
//! ([`CacheSizes::from_str`](std::str::FromStr)).

use std::fmt;
use std::str::FromStr;

/// The data cache sizes Eigen reads with `cpuid` (bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheSizes {
    /// L1 data cache.
    pub l1: usize,
    /// L2 cache.
    pub l2: usize,
    /// L3 cache.
    pub l3: usize,
}

impl CacheSizes {
    /// The caches of the x86-64 machine (an Intel Xeon) the calibration goldens were generated
    /// on: 48 KiB L1d, 2 MiB L2, 480 MiB L3, as Eigen read them there.
    pub const GOLDEN: CacheSizes = CacheSizes {
        l1: 48 * 1024,
        l2: 2048 * 1024,
        l3: 491_520 * 1024,
    };

    /// Eigen's x86 defaults, which it takes for a size `cpuid` reports as 0
    /// (`defaultL1CacheSize` …: 32 KiB, 256 KiB, 2 MiB).
    pub const EIGEN_X86_DEFAULT: CacheSizes = CacheSizes {
        l1: 32 * 1024,
        l2: 256 * 1024,
        l3: 2048 * 1024,
    };

    /// This machine's caches as Eigen reads them (`queryCacheSizes`: `cpuid` leaf 4 on Intel,
    /// leaves 0x80000005/6 on AMD; a size reported as 0 takes Eigen's default), on x86-64;
    /// `None` elsewhere (TF's calibration arithmetic reproduced here is its x86-64 wheel's).
    pub fn host() -> Option<CacheSizes> {
        host_caches()
    }

    /// Sizes read from `cpuid` (bytes, 0 for unknown), each 0 replaced by Eigen's default.
    pub fn with_eigen_defaults(l1: usize, l2: usize, l3: usize) -> CacheSizes {
        let or = |v: usize, d: usize| if v == 0 { d } else { v };
        let d = Self::EIGEN_X86_DEFAULT;
        CacheSizes {
            l1: or(l1, d.l1),
            l2: or(l2, d.l2),
            l3: or(l3, d.l3),
        }
    }
}

/// `L1,L2,L3` in KiB, or `golden` for [`CacheSizes::GOLDEN`] (as `--tf-caches` and the page
/// take them).
impl FromStr for CacheSizes {
    type Err = String;
    fn from_str(text: &str) -> Result<Self, String> {
        if text.trim() == "golden" {
            return Ok(CacheSizes::GOLDEN);
        }
        let sizes: Vec<usize> = text
            .split(',')
            .map(|s| {
                s.trim()
                    .parse::<usize>()
                    .ok()
                    .filter(|&v| (1..1 << 30).contains(&v))
            })
            .collect::<Option<_>>()
            .filter(|v: &Vec<usize>| v.len() == 3)
            .ok_or_else(|| {
                format!(
                    "'{text}' is not three cache sizes in KiB, L1,L2,L3 (e.g. 48,2048,491520), \
                     nor golden"
                )
            })?;
        Ok(CacheSizes {
            l1: sizes[0] * 1024,
            l2: sizes[1] * 1024,
            l3: sizes[2] * 1024,
        })
    }
}

/// `L1,L2,L3` in KiB, the form [`FromStr`] reads.
impl fmt::Display for CacheSizes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{},{},{}",
            self.l1 / 1024,
            self.l2 / 1024,
            self.l3 / 1024
        )
    }
}

#[cfg(all(target_arch = "x86_64", not(target_family = "wasm")))]
fn host_caches() -> Option<CacheSizes> {
    use std::arch::x86_64::__cpuid_count;
    let id = __cpuid_count(0, 0);
    // "GenuineIntel" / "AuthenticAMD" / "AMDisbetter!" in ebx, edx, ecx.
    let vendor = [id.ebx, id.edx, id.ecx];
    let amd = vendor == [0x6874_7541, 0x6974_6e65, 0x444d_4163]
        || vendor == [0x6944_4d41, 0x7465_6273, 0x2172_6574];
    let (l1, l2, l3) = if amd {
        if __cpuid_count(0x8000_0000, 0).eax >= 0x8000_0006 {
            let l1 = (__cpuid_count(0x8000_0005, 0).ecx >> 24) as usize * 1024;
            let l2_l3 = __cpuid_count(0x8000_0006, 0);
            let l2 = (l2_l3.ecx >> 16) as usize * 1024;
            let l3 = ((l2_l3.edx & 0x0FFF_C000) >> 18) as usize * 512 * 1024;
            (l1, l2, l3)
        } else {
            (0, 0, 0)
        }
    } else if id.eax >= 4 {
        // Intel's deterministic cache parameters (Eigen's default for other vendors too).
        let (mut l1, mut l2, mut l3) = (0, 0, 0);
        for sub in 0..16 {
            let c = __cpuid_count(4, sub);
            let kind = c.eax & 0x0F;
            if kind == 0 {
                break;
            }
            if kind == 1 || kind == 3 {
                let ways = ((c.ebx >> 22) & 0x3FF) as usize + 1;
                let partitions = ((c.ebx >> 12) & 0x3FF) as usize + 1;
                let line = (c.ebx & 0xFFF) as usize + 1;
                let sets = c.ecx as usize + 1;
                let size = ways * partitions * line * sets;
                match (c.eax >> 5) & 7 {
                    1 => l1 = size,
                    2 => l2 = size,
                    3 => l3 = size,
                    _ => {}
                }
            }
        }
        (l1, l2, l3)
    } else {
        // Eigen decodes leaf 2's descriptor bytes on CPUs older than leaf 4 (before 2004);
        // not reproduced: its defaults.
        (0, 0, 0)
    };
    Some(CacheSizes::with_eigen_defaults(l1, l2, l3))
}

#[cfg(not(all(target_arch = "x86_64", not(target_family = "wasm"))))]
fn host_caches() -> Option<CacheSizes> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kib_triples_round_trip_and_bad_ones_are_refused() {
        let c: CacheSizes = "48,2048,491520".parse().expect("parses");
        assert_eq!(c, CacheSizes::GOLDEN);
        assert_eq!(c.to_string(), "48,2048,491520");
        assert_eq!("golden".parse::<CacheSizes>(), Ok(CacheSizes::GOLDEN));
        assert_eq!(
            "32, 1024, 327680".parse::<CacheSizes>().map(|c| c.l2),
            Ok(1024 * 1024)
        );
        for bad in [
            "",
            "host",
            "Golden",
            "48,2048",
            "48,2048,1,4",
            "0,1,2",
            "a,b,c",
            "48,-1,2",
        ] {
            assert!(bad.parse::<CacheSizes>().is_err(), "{bad}");
        }
    }

    #[test]
    fn zero_sizes_take_eigens_defaults() {
        let c = CacheSizes::with_eigen_defaults(0, 1024 * 1024, 0);
        assert_eq!(c.l1, 32 * 1024);
        assert_eq!(c.l2, 1024 * 1024);
        assert_eq!(c.l3, 2048 * 1024);
    }

    #[cfg(all(target_arch = "x86_64", not(target_family = "wasm")))]
    #[test]
    fn the_host_has_sizes_on_x86_64() {
        let c = CacheSizes::host().expect("x86-64 reads cpuid");
        assert!(c.l1 >= 1024 && c.l2 >= c.l1 && c.l3 >= 1024, "{c:?}");
    }
}
