import Foundation

// Untyped values into persisted types: what `init(value:)` and `Database.create(_:value:update:)`
// accept for a property, as Realm's `init(value:)` does.
//
// - A value of the type itself is taken as is.
// - Numbers convert when the value fits: any integer for an integer property of any width when
//   it is in range, any integer or Double for Float and Double (a Double beyond Float's range
//   is a mismatch), any integer or finite Float or Double for Decimal128.
// - nil and NSNull are nil for an optional (and `.none` for `AnyValue`).
// - A raw value is the case of a `PersistableEnum` with that raw value.
// - Objects and embedded objects: an instance (linked as is), or a dictionary or array of
//   property values (a new unmanaged object, see `ObjectBase+Value.swift`).
// - Lists and sets: any sequence (not a string or a dictionary) of convertible elements; maps: a
//   `[String: Any]` or a `Map`. The result is always a new unmanaged collection.
//
// Anything else throws `.invalidValue`: nothing here traps on caller input.

extension _Persistable {
    public static func _strataConvert(_ value: Any) throws -> Self {
        if let typed = value as? Self { return typed }
        throw conversionMismatch(value)
    }

    /// The error for `value`, which is not a value of this type.
    static func conversionMismatch(_ value: Any) -> StrataError {
        StrataError(.invalidValue, "expected \(_strataType), got \(describeGiven(value))")
    }
}

/// A given value for a message: its type, and the value itself when it is short.
func describeGiven(_ value: Any) -> String {
    let text = String(describing: value)
    let type = String(describing: Swift.type(of: value))
    return text.count <= 40 ? "\(type) \(text)" : type
}

extension _Persistable {
    /// `value` when it is of this type, else the integer it is when `exactly` makes a value of
    /// it (nil: out of range).
    static func converting(_ value: Any, integer exactly: (any BinaryInteger) -> Self?) throws -> Self {
        if let typed = value as? Self { return typed }
        if let integer = value as? any BinaryInteger, let exact = exactly(integer) { return exact }
        throw conversionMismatch(value)
    }
}

extension _PersistableInteger {
    public static func _strataConvert(_ value: Any) throws -> Self {
        try converting(value) { Self(exactly: $0) }
    }
}

extension Float {
    public static func _strataConvert(_ value: Any) throws -> Float {
        if let typed = value as? Float { return typed }
        if let double = value as? Double, !double.isFinite || abs(double) <= Double(Float.greatestFiniteMagnitude) {
            return Float(double)
        }
        if let integer = value as? any BinaryInteger { return Float(integer) }
        throw conversionMismatch(value)
    }
}

extension Double {
    public static func _strataConvert(_ value: Any) throws -> Double {
        if let typed = value as? Double { return typed }
        if let float = value as? Float { return Double(float) }
        if let integer = value as? any BinaryInteger { return Double(integer) }
        throw conversionMismatch(value)
    }
}

extension String {
    public static func _strataConvert(_ value: Any) throws -> String {
        guard let text = value as? any StringProtocol else { throw conversionMismatch(value) }
        return String(text)
    }
}

extension Data {
    public static func _strataConvert(_ value: Any) throws -> Data {
        if let typed = value as? Data { return typed }
        if let bytes = value as? [UInt8] { return Data(bytes) }
        throw conversionMismatch(value)
    }
}

extension Decimal128 {
    public static func _strataConvert(_ value: Any) throws -> Decimal128 {
        if let number = value as? Double, number.isFinite { return Decimal128(number) }
        if let number = value as? Float, number.isFinite { return Decimal128(Double(number)) }
        return try converting(value) { Decimal128(exactly: $0) }
    }
}

extension Optional {
    /// Whether an untyped value is nil: NSNull, or an optional holding nothing.
    static func isNilValue(_ value: Any) -> Bool {
        if value is NSNull { return true }
        if let optional = value as? any OptionalValue { return optional.isNil }
        return false
    }
}

extension Optional where Wrapped: _PersistableOptional {
    public static func _strataConvert(_ value: Any) throws -> Self {
        if isNilValue(value) { return nil }
        return try Wrapped._strataConvert(value)
    }
}

extension PersistableEnum {
    public static func _strataConvert(_ value: Any) throws -> Self {
        if let typed = value as? Self { return typed }
        guard let raw = try? RawValue._strataConvert(value), let converted = Self(rawValue: raw) else {
            throw StrataError(.invalidValue, "expected a \(Self.self) or the raw value of one of its cases, got \(describeGiven(value))")
        }
        return converted
    }
}

extension AnyValue {
    public static func _strataConvert(_ value: Any) throws -> AnyValue {
        if let typed = value as? AnyValue { return typed }
        if Optional<Int>.isNilValue(value) { return .none }
        switch value {
        case let flag as Bool: return .bool(flag)
        case let number as Int: return .int(number)
        case let number as any BinaryInteger:
            guard let exact = Int(exactly: number) else { throw conversionMismatch(value) }
            return .int(exact)
        case let number as Float: return .float(number)
        case let number as Double: return .double(number)
        case let text as String: return .string(text)
        case let data as Data: return .data(data)
        case let date as Date: return .date(date)
        case let id as ObjectId: return .objectId(id)
        case let decimal as Decimal128: return .decimal128(decimal)
        case let uuid as UUID: return .uuid(uuid)
        case let object as Object: return .object(object)
        case let entries as [String: Any]: return .map(try entries.mapValues { try _strataConvert($0) })
        case let elements as [Any]: return .list(try elements.map { try _strataConvert($0) })
        default: throw conversionMismatch(value)
        }
    }
}

/// The elements of an untyped sequence given for a list or a set; nil for a value that is not
/// one (a string and a dictionary are sequences, but not of elements).
func convertibleElements(of value: Any) -> [Any]? {
    if value is String || value is Substring || value is [String: Any] { return nil }
    if let array = value as? [Any] { return array }
    guard let sequence = value as? any Sequence else { return nil }
    return anyElements(of: sequence)
}

private func anyElements<S: Sequence>(of sequence: S) -> [Any] {
    sequence.map { $0 as Any }
}

/// Converts the elements of an untyped sequence, naming the position of one that does not
/// convert.
func convertElements<Element: _Persistable>(_ value: Any, to type: Element.Type, collection: String) throws -> [Element] {
    guard let elements = convertibleElements(of: value) else {
        throw StrataError(.invalidValue, "expected a \(collection) or an array, got \(describeGiven(value))")
    }
    var converted: [Element] = []
    converted.reserveCapacity(elements.count)
    for (position, element) in elements.enumerated() {
        do {
            converted.append(try Element._strataConvert(element))
        } catch {
            throw StrataError.inContext("element \(position)", error)
        }
    }
    return converted
}
