import Foundation

/// `@min`, `@max`, `@sum`, `@avg` and `@count` over stored values, as Realm computes them:
/// nulls and values that are not numbers (or dates, for min and max) are skipped; the sum of
/// nothing is 0, the minimum, maximum and average of nothing are null. Integers sum exactly
/// (overflow wraps, as Realm's 64-bit sums do); an average is a Double (a Decimal128 for
/// Decimal128 values).
enum QueryAggregator {
    static func aggregate(_ aggregate: QueryAggregate, _ values: [FieldValue]) -> FieldValue {
        switch aggregate {
        case .count: return .int(Int64(values.count))
        case .min: return extreme(values, keepsFirst: { FieldOrder.compare($0, $1) ?? 0 < 0 })
        case .max: return extreme(values, keepsFirst: { FieldOrder.compare($0, $1) ?? 0 > 0 })
        case .sum: return sum(values)
        case .average: return average(values)
        }
    }

    private static func isAggregatable(_ value: FieldValue) -> Bool {
        switch value {
        case .int, .float, .double, .decimal, .date: return true
        default: return false
        }
    }

    private static func extreme(_ values: [FieldValue], keepsFirst: (FieldValue, FieldValue) -> Bool) -> FieldValue {
        var best: FieldValue = .null
        for value in values where isAggregatable(value) {
            if best.isNull || keepsFirst(value, best) { best = value }
        }
        return best
    }

    private static func sum(_ values: [FieldValue]) -> FieldValue {
        var integer: Int64 = 0, real = 0.0, decimal = Decimal128(0)
        var sawReal = false, sawDecimal = false
        for value in values {
            switch value {
            case .int(let number): integer &+= number
            case .float(let number): real += Double(number); sawReal = true
            case .double(let number): real += number; sawReal = true
            case .decimal(let number): decimal = decimal + number; sawDecimal = true
            default: continue
            }
        }
        if sawDecimal { return .decimal(decimal + Decimal128(integer) + Decimal128(real)) }
        return sawReal ? .double(real + Double(integer)) : .int(integer)
    }

    private static func average(_ values: [FieldValue]) -> FieldValue {
        var count = 0, total = 0.0, decimal = Decimal128(0), sawDecimal = false
        for value in values {
            switch value {
            case .int(let number): total += Double(number)
            case .float(let number): total += Double(number)
            case .double(let number): total += number
            case .decimal(let number): decimal = decimal + number; sawDecimal = true
            default: continue
            }
            count += 1
        }
        guard count > 0 else { return .null }
        if sawDecimal { return .decimal((decimal + Decimal128(total)) / Decimal128(Int64(count))) }
        return .double(total / Double(count))
    }
}
