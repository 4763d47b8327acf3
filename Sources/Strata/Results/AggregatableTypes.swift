import Foundation

/// A property type whose values `min(of:)` and `max(of:)` compare: the integers, `Float`,
/// `Double`, `Decimal128`, `Date`, and their optionals (Realm's name).
public protocol MinMaxType: _Persistable {}

/// A property type whose values `sum(of:)` and `average(of:)` add: the integers, `Float`,
/// `Double`, `Decimal128`, and their optionals (Realm's name).
public protocol AddableType: MinMaxType {}

extension Int: AddableType {}
extension Int8: AddableType {}
extension Int16: AddableType {}
extension Int32: AddableType {}
extension Int64: AddableType {}
extension Float: AddableType {}
extension Double: AddableType {}
extension Decimal128: AddableType {}
extension Date: MinMaxType {}
extension Optional: MinMaxType where Wrapped: MinMaxType & _PersistableOptional {}
extension Optional: AddableType where Wrapped: AddableType & _PersistableOptional {}

/// Converts what `QueryAggregator` computed to a property type: an integer sum back to `Int8`
/// (wrapping, as the stored 64-bit sum does), a Double sum of `Float`s to `Float`…
enum AggregateConversion {
    /// `result` as a `T`; nil for null or a value that is not a number of any kind (or a date,
    /// for a `Date`).
    static func value<T: _Persistable>(_ result: FieldValue, as type: T.Type) -> T? {
        guard let stored = coerce(result, to: T._strataType.type) else { return nil }
        return T._strataRead(stored, nil)
    }

    private static func coerce(_ value: FieldValue, to type: PropertyType) -> FieldValue? {
        switch type {
        case .int, .int8, .int16, .int32, .int64:
            if case .int = value { return value }
            guard let real = double(value), real.isFinite, abs(real) < 9.2e18 else { return nil }
            return .int(Int64(real))
        case .float: return double(value).map { .float(Float($0)) }
        case .double: return double(value).map { .double($0) }
        case .decimal128:
            switch value {
            case .decimal: return value
            case .int(let number): return .decimal(Decimal128(number))
            default: return double(value).map { .decimal(Decimal128($0)) }
            }
        case .date:
            if case .date = value { return value }
            return nil
        default:
            return nil
        }
    }

    private static func double(_ value: FieldValue) -> Double? {
        switch value {
        case .int(let number): return Double(number)
        case .float(let number): return Double(number)
        case .double(let number): return number
        case .decimal(let number): return number.doubleValue
        default: return nil
        }
    }
}
