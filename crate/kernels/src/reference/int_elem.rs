//! The integer element types the quantized data-movement, pooling, reduction and resize kernels
//! are generic over (`i8`, `u8`, `i16`): widening to `i32` and saturating back.

/// A quantized tensor element: widens losslessly to `i32` and saturates back from it.
pub trait IntElem: Copy + PartialOrd + bytemuck::Pod {
    /// The type's smallest value, widened.
    const MIN: i32;
    /// The type's largest value, widened.
    const MAX: i32;
    /// The value, widened to `i32`.
    fn widen(self) -> i32;
    /// `v` clamped to the type's range (`static_cast<T>(std::clamp(v, MIN, MAX))`).
    fn saturate(v: i32) -> Self;
}

macro_rules! int_elem {
    ($t:ty) => {
        impl IntElem for $t {
            const MIN: i32 = <$t>::MIN as i32;
            const MAX: i32 = <$t>::MAX as i32;
            #[inline(always)]
            fn widen(self) -> i32 {
                i32::from(self)
            }
            #[inline(always)]
            fn saturate(v: i32) -> Self {
                v.clamp(<Self as IntElem>::MIN, <Self as IntElem>::MAX) as $t
            }
        }
    };
}

int_elem!(i8);
int_elem!(u8);
int_elem!(i16);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saturate_clamps_to_each_range() {
        assert_eq!(i8::saturate(200), 127);
        assert_eq!(i8::saturate(-200), -128);
        assert_eq!(u8::saturate(-1), 0);
        assert_eq!(u8::saturate(256), 255);
        assert_eq!(i16::saturate(40_000), 32_767);
        assert_eq!(i16::saturate(-7), -7);
        assert_eq!((-128i8).widen(), -128);
        assert_eq!(<u8 as IntElem>::MAX, 255);
    }
}
