//! IEEE 754 half precision (binary16), the element of pgvector's `halfvec`: a value
//! rounded from `f32` as pgvector's `Float4ToHalfUnchecked` rounds it (to nearest, ties
//! to even, overflowing to an infinity, underflowing through subnormals to a signed
//! zero), and the 16 bits of `halfvec_send`/`halfvec_recv`. A half widens to `f32`
//! exactly, so the model keeps a halfvec's elements as the `f32`s they widen to.

/// The bits of the half nearest `value` (`Float4ToHalfUnchecked`).
pub(crate) fn to_bits(value: f32) -> u16 {
    let bits = value.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    if value.is_nan() {
        // A quiet NaN keeping the top of the payload, as pgvector's fallback does.
        return sign | 0x7E00 | ((bits & 0x007F_FFFF) >> 13) as u16;
    }
    if value.is_infinite() {
        return sign | 0x7C00;
    }
    let exponent = ((bits >> 23) & 0xFF) as i32 - 127;
    // Below half the smallest subnormal (2^-25) every value rounds to zero.
    if exponent < -25 {
        return sign;
    }
    let mantissa = (bits & 0x007F_FFFF) | 0x0080_0000;
    // How many of the 24 significant bits the half drops: 13 for a normal half, more
    // for a subnormal one.
    let shift = if exponent < -14 {
        13 + (-14 - exponent) as u32
    } else {
        13
    };
    let kept = mantissa >> shift;
    let dropped = mantissa & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    let round_up = dropped > halfway || (dropped == halfway && kept & 1 == 1);
    let kept = kept + u32::from(round_up);
    let magnitude = if exponent < -14 {
        // A subnormal: its bits are the kept mantissa (a carry into bit 10 makes it
        // the smallest normal, whose encoding is the same number).
        kept
    } else {
        // `kept` holds the implicit bit at bit 10 (or 11 after a carry): adding it to
        // the biased exponent carries the overflow, up to the infinity's 0x7C00.
        (((exponent + 14) as u32) << 10) + kept
    };
    sign | magnitude.min(0x7C00) as u16
}

/// The `f32` a half's bits widen to (`HalfToFloat4`): exact.
pub(crate) fn from_bits(half: u16) -> f32 {
    let sign = u32::from(half & 0x8000) << 16;
    let exponent = u32::from((half >> 10) & 0x1F);
    let mantissa = u32::from(half & 0x03FF);
    match exponent {
        // A subnormal: mantissa × 2^-24, exact in `f32`.
        0 => {
            let magnitude = mantissa as f32 * f32::from_bits((127 - 24) << 23);
            f32::from_bits(sign | magnitude.to_bits())
        }
        31 if mantissa == 0 => f32::from_bits(sign | 0x7F80_0000),
        31 => f32::NAN,
        _ => f32::from_bits(sign | ((exponent + 127 - 15) << 23) | (mantissa << 13)),
    }
}

/// `value` rounded to the nearest half, as an `f32`.
pub(crate) fn round(value: f32) -> f32 {
    from_bits(to_bits(value))
}

/// Whether `value` is exactly a half (a halfvec's every element is).
pub(crate) fn is_half(value: f32) -> bool {
    value.is_nan() || round(value) == value
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The largest finite half.
    const HALF_MAX: f32 = 65_504.0;

    #[test]
    fn rounds_to_nearest_even_half() {
        assert_eq!(round(1.0), 1.0);
        assert_eq!(round(1.23456), 1.234375);
        assert_eq!(round(0.1), 0.099975586);
        assert_eq!(round(3.3), 3.300_781_3);
        assert_eq!(round(1e-5), 1.001358e-5);
        assert_eq!(round(65519.0), HALF_MAX);
        assert_eq!(round(65520.0), f32::INFINITY);
        assert_eq!(round(-65520.0), f32::NEG_INFINITY);
        assert_eq!(round(1e-8), 0.0);
        assert!(round(-1e-8).is_sign_negative() && round(-1e-8) == 0.0);
        // The smallest subnormal, 2^-24, and a tie below it that rounds to even (zero).
        assert_eq!(round(2f32.powi(-24)), 2f32.powi(-24));
        assert_eq!(round(2f32.powi(-25)), 0.0);
        assert_eq!(round(1.5 * 2f32.powi(-25)), 2f32.powi(-24));
        // 1 + 2^-11 is a tie between 1 and 1 + 2^-10: to even, 1.
        assert_eq!(round(1.0 + 2f32.powi(-11)), 1.0);
        assert_eq!(
            round(1.0 + 3.0 * 2f32.powi(-11)),
            1.0 + 2.0 * 2f32.powi(-10)
        );
        // The largest subnormal rounding up into the smallest normal.
        assert_eq!(round(2f32.powi(-14) - 2f32.powi(-26)), 2f32.powi(-14));
    }

    #[test]
    fn bits_round_trip() {
        for bits in (0u16..0x7C00).chain(0x8000..0xFC00) {
            let value = from_bits(bits);
            assert_eq!(to_bits(value), bits, "{bits:#06x}");
            assert!(is_half(value));
        }
        assert_eq!(to_bits(1.0), 0x3C00);
        assert_eq!(to_bits(-2.0), 0xC000);
        assert_eq!(from_bits(0x7C00), f32::INFINITY);
        assert!(from_bits(0x7E00).is_nan());
        assert!(!is_half(0.1));
    }
}
