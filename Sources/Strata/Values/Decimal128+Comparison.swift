// Numeric equality, a total order, and hashing consistent with both.
//
// Order: NaN (all NaNs equal) < -Infinity < finite values (numerically; -0 == +0, 1.0 == 1.00)
// < +Infinity. Realm's core orders Decimal128 the same way (NaN first, NaN == NaN), which keeps
// sorting, hashing and indexes well-defined where IEEE comparison would not be.

extension Decimal128: Hashable, Comparable {
    /// Returns whether two decimals are numerically equal.
    ///
    /// Different representations of one number are equal (`1.0 == 1.00`, `-0 == 0`,
    /// `1E+2 == 100`). Unlike IEEE 754, NaN equals NaN (any sign or payload), so that `==` is an
    /// equivalence relation as `Hashable` requires.
    ///
    /// - Parameters:
    ///   - lhs: A decimal to compare.
    ///   - rhs: Another decimal to compare.
    public static func == (lhs: Decimal128, rhs: Decimal128) -> Bool {
        if lhs.highBits == rhs.highBits && lhs.lowBits == rhs.lowBits { return true }
        return compare(lhs, rhs) == 0
    }

    /// Returns whether `lhs` orders before `rhs`: numerically, with NaN before every other value
    /// (see the type's documentation for the total order).
    ///
    /// - Parameters:
    ///   - lhs: A decimal to compare.
    ///   - rhs: Another decimal to compare.
    public static func < (lhs: Decimal128, rhs: Decimal128) -> Bool {
        compare(lhs, rhs) < 0
    }

    /// Hashes the number this decimal represents, so that equal decimals (such as `1.0` and
    /// `1.00`) hash alike: the sign, coefficient and exponent after removing the coefficient's
    /// trailing zeros, a single value for all zeros and one for all NaNs.
    ///
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        if isNaN {
            hasher.combine(0 as UInt8)
        } else if isInfinite {
            hasher.combine(isNegative ? 1 as UInt8 : 2)
        } else {
            var (coefficient, exponent) = finiteParts
            if coefficient == 0 {
                hasher.combine(3 as UInt8)
                return
            }
            while coefficient % 10 == 0 {
                coefficient /= 10
                exponent += 1
            }
            hasher.combine(4 as UInt8)
            hasher.combine(isNegative)
            hasher.combine(coefficient)
            hasher.combine(exponent)
        }
    }

    /// The rank of a value's class in the total order.
    private var orderClass: Int {
        if isNaN { return 0 }
        if isInfinite { return isNegative ? 1 : 3 }
        return 2
    }

    /// -1, 0 or 1 as `lhs` orders before, with, or after `rhs`.
    static func compare(_ lhs: Decimal128, _ rhs: Decimal128) -> Int {
        let lhsClass = lhs.orderClass, rhsClass = rhs.orderClass
        if lhsClass != rhsClass { return lhsClass < rhsClass ? -1 : 1 }
        if lhsClass != 2 { return 0 }
        let (lhsCoefficient, lhsExponent) = lhs.finiteParts
        let (rhsCoefficient, rhsExponent) = rhs.finiteParts
        let lhsSign = lhsCoefficient == 0 ? 0 : (lhs.isNegative ? -1 : 1)
        let rhsSign = rhsCoefficient == 0 ? 0 : (rhs.isNegative ? -1 : 1)
        if lhsSign != rhsSign { return lhsSign < rhsSign ? -1 : 1 }
        if lhsSign == 0 { return 0 }
        let magnitudeOrder = compareMagnitudes(lhsCoefficient, lhsExponent, rhsCoefficient, rhsExponent)
        return lhsSign > 0 ? magnitudeOrder : -magnitudeOrder
    }

    /// Compares two non-zero magnitudes `a` × 10^`aExponent` and `b` × 10^`bExponent`.
    static func compareMagnitudes(_ a: UInt128, _ aExponent: Int, _ b: UInt128, _ bExponent: Int) -> Int {
        let aAdjusted = aExponent + digitCount(a)
        let bAdjusted = bExponent + digitCount(b)
        if aAdjusted != bAdjusted { return aAdjusted < bAdjusted ? -1 : 1 }
        // Same magnitude order: scaling the one with the larger exponent to the other's
        // exponent gives it the other's digit count (at most 34), so no overflow.
        var a = a, b = b
        if aExponent > bExponent { a *= powersOf10[aExponent - bExponent] }
        if bExponent > aExponent { b *= powersOf10[bExponent - aExponent] }
        return a == b ? 0 : (a < b ? -1 : 1)
    }
}
