import Foundation

// An untyped Swift value (what a `[String: Any]` holds) as the stored scalar of a property
// type, converting as Realm's untyped setters do: any integer that fits for an integer width,
// any number for a float, double or decimal, a `PersistableEnum` by its raw value. What does
// not convert exactly is refused, never cut or rounded into another value.

extension FieldValue {
    /// `value` as the stored scalar of `type`, or nil when it is not one (a value out of
    /// range, another type). Links, collections and embedded objects are not scalars.
    static func coercing(_ value: Any, to type: PropertyType) -> FieldValue? {
        if let field = coercingDirectly(value, to: type) { return field }
        guard !(value is AnyValue), let raw = (value as? any RawRepresentable)?.rawValue else { return nil }
        return coercingDirectly(raw, to: type)
    }

    /// `value` itself (not a raw value) as the stored scalar of `type`.
    private static func coercingDirectly(_ value: Any, to type: PropertyType) -> FieldValue? {
        switch type {
        case .bool: return (value as? Bool).map(FieldValue.bool)
        case .int, .int64: return integer(value, in: Int64.min...Int64.max)
        case .int8: return integer(value, in: Int64(Int8.min)...Int64(Int8.max))
        case .int16: return integer(value, in: Int64(Int16.min)...Int64(Int16.max))
        case .int32: return integer(value, in: Int64(Int32.min)...Int64(Int32.max))
        case .float:
            if let number = value as? Float { return .float(number) }
            return number(value).flatMap { Float(exactly: $0) }.map(FieldValue.float)
        case .double: return number(value).map(FieldValue.double)
        case .string: return (value as? String ?? (value as? Substring).map(String.init)).map(FieldValue.string)
        case .data: return (value as? Data ?? (value as? [UInt8]).map { Data($0) }).map(FieldValue.data)
        case .date: return (value as? Date).map { .date($0.timeIntervalSinceReferenceDate) }
        case .decimal128: return decimal(value).map(FieldValue.decimal)
        case .uuid: return (value as? UUID).map(FieldValue.uuid)
        case .objectId: return (value as? ObjectId).map(FieldValue.objectId)
        case .any: return (value as? AnyValue).flatMap { try? $0._strataWrite(nil) } ?? mixed(value)
        case .object, .list, .set, .map, .linkingObjects: return nil
        }
    }

    /// An integer of any width within `range`.
    private static func integer(_ value: Any, in range: ClosedRange<Int64>) -> FieldValue? {
        guard !(value is Bool), let integer = value as? any BinaryInteger, let exact = Int64(exactly: integer), range.contains(exact) else {
            return nil
        }
        return .int(exact)
    }

    /// A number of any kind as a double, when it converts exactly.
    private static func number(_ value: Any) -> Double? {
        switch value {
        case is Bool: return nil
        case let number as Double: return number
        case let number as Float: return Double(number)
        case let integer as any BinaryInteger: return Double(exactly: integer)
        default: return nil
        }
    }

    private static func decimal(_ value: Any) -> Decimal128? {
        switch value {
        case let decimal as Decimal128: return decimal
        case is Bool: return nil
        case let integer as any BinaryInteger: return Decimal128(exactly: integer)
        case let number as Double: return number.isFinite ? Decimal128(number) : nil
        case let number as Float: return number.isFinite ? Decimal128(Double(number)) : nil
        default: return nil
        }
    }

    /// A plain Swift value stored in a mixed property, as the `AnyValue` case it matches.
    private static func mixed(_ value: Any) -> FieldValue? {
        switch value {
        case let flag as Bool: return .bool(flag)
        case let integer as any BinaryInteger: return Int64(exactly: integer).map(FieldValue.int)
        case let number as Float: return .float(number)
        case let number as Double: return .double(number)
        case let text as String: return .string(text)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date.timeIntervalSinceReferenceDate)
        case let decimal as Decimal128: return .decimal(decimal)
        case let uuid as UUID: return .uuid(uuid)
        case let id as ObjectId: return .objectId(id)
        default: return nil
        }
    }
}
