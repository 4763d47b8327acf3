import Foundation
import StrataStorage

/// A type a `@Persisted` property can hold. Strata conforms the supported types; you do not
/// conform your own types (use `PersistableEnum` for enums).
///
/// The requirements are underscored: they are how the object layer converts values, not API.
public protocol _Persistable {
    /// The schema type of this Swift type.
    static var _strataType: _TypeDescriptor { get }
    /// The value of a property that was never set.
    static func _strataDefault() -> Self
    /// Converts a stored value back. `context` resolves links; it is nil for unmanaged values.
    static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Self
    /// Converts to a stored value.
    /// - Throws: ``/StrataStorage/StrataError`` when the value cannot be stored (over a size limit, a link to
    ///   an object of another database…).
    func _strataWrite(_ context: Database?) throws -> _FieldValue
    /// For collection types: a view bound to a managed object's property. Nil for values.
    static func _strataBind(owner: _ObjectState, index: Int) -> Self?
    /// Decodes an unmanaged value (for `Codable` model classes).
    static func _strataDecode(from decoder: any Decoder) throws -> Self
    /// Converts an untyped value, as `init(value:)` and `Database.create` take it, to an
    /// unmanaged value of this type (see `Persistable+Conversion.swift`).
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidValue` saying what was expected and what was given.
    static func _strataConvert(_ value: Any) throws -> Self
}

extension _Persistable {
    public static func _strataBind(owner: _ObjectState, index: Int) -> Self? { nil }
    public static func _strataDecode(from decoder: any Decoder) throws -> Self {
        throw DecodingError.typeMismatch(Self.self, .init(codingPath: decoder.codingPath, debugDescription: "\(Self.self) cannot be decoded"))
    }
}

extension _Persistable where Self: Decodable {
    public static func _strataDecode(from decoder: any Decoder) throws -> Self { try Self(from: decoder) }
}

/// A type that may stand inside `Optional` in a `@Persisted` property.
public protocol _PersistableOptional: _Persistable {
    /// Reads a stored value into an optional: nil for a stored null (and, for links, for a
    /// target that no longer exists).
    static func _strataReadOptional(_ value: _FieldValue, _ context: Database?) -> Self?
}

extension _PersistableOptional {
    public static func _strataReadOptional(_ value: _FieldValue, _ context: Database?) -> Self? {
        value.isNull ? nil : _strataRead(value, context)
    }
}

extension Optional: _Persistable where Wrapped: _PersistableOptional {
    public static var _strataType: _TypeDescriptor {
        var descriptor = Wrapped._strataType
        descriptor.isOptional = true
        return descriptor
    }
    public static func _strataDefault() -> Self { nil }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Self {
        Wrapped._strataReadOptional(value, context)
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue {
        guard let self else { return .null }
        return try self._strataWrite(context)
    }
    public static func _strataDecode(from decoder: any Decoder) throws -> Self {
        if try decoder.singleValueContainer().decodeNil() { return nil }
        return try Wrapped._strataDecode(from: decoder)
    }
}

/// The largest String or Data a property may hold: 16 MB, as in Realm.
let maxStringOrDataSize = 16 * 1024 * 1024

/// The error for a String or Data of `bytes` bytes, over `maxStringOrDataSize`.
func oversizeError(_ typeName: String, bytes: Int) -> StrataError {
    StrataError(.invalidValue, "a \(typeName) of \(bytes) bytes is over the 16 MB limit")
}

extension Bool: _PersistableOptional {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.bool) }
    public static func _strataDefault() -> Bool { false }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Bool {
        if case .bool(let flag) = value { return flag }
        return false
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue { .bool(self) }
}

/// The integer types share one stored form, a 64-bit integer.
public protocol _PersistableInteger: FixedWidthInteger, _PersistableOptional {
    static var _strataIntegerType: PropertyType { get }
}

extension _PersistableInteger {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(_strataIntegerType) }
    public static func _strataDefault() -> Self { 0 }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Self {
        if case .int(let number) = value { return Self(truncatingIfNeeded: number) }
        return 0
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue { .int(Int64(self)) }
}

extension Int: _PersistableInteger { public static var _strataIntegerType: PropertyType { .int } }
extension Int8: _PersistableInteger { public static var _strataIntegerType: PropertyType { .int8 } }
extension Int16: _PersistableInteger { public static var _strataIntegerType: PropertyType { .int16 } }
extension Int32: _PersistableInteger { public static var _strataIntegerType: PropertyType { .int32 } }
extension Int64: _PersistableInteger { public static var _strataIntegerType: PropertyType { .int64 } }

extension Float: _PersistableOptional {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.float) }
    public static func _strataDefault() -> Float { 0 }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Float {
        if case .float(let number) = value { return number }
        return 0
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue { .float(self) }
}

extension Double: _PersistableOptional {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.double) }
    public static func _strataDefault() -> Double { 0 }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Double {
        if case .double(let number) = value { return number }
        return 0
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue { .double(self) }
}

extension String: _PersistableOptional {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.string) }
    public static func _strataDefault() -> String { "" }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> String {
        if case .string(let text) = value { return text }
        return ""
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue {
        guard utf8.count <= maxStringOrDataSize else { throw oversizeError("String", bytes: utf8.count) }
        return .string(self)
    }
}

extension Data: _PersistableOptional {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.data) }
    public static func _strataDefault() -> Data { Data() }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Data {
        if case .data(let data) = value { return data }
        return Data()
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue {
        guard count <= maxStringOrDataSize else { throw oversizeError("Data", bytes: count) }
        return .data(self)
    }
}

extension Date: _PersistableOptional {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.date) }
    public static func _strataDefault() -> Date { Date(timeIntervalSinceReferenceDate: 0) }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Date {
        if case .date(let seconds) = value { return Date(timeIntervalSinceReferenceDate: seconds) }
        return _strataDefault()
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue { .date(timeIntervalSinceReferenceDate) }
}

extension UUID: _PersistableOptional {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.uuid) }
    /// A new random UUID, so every object gets its own (Realm does the same).
    public static func _strataDefault() -> UUID { UUID() }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> UUID {
        if case .uuid(let uuid) = value { return uuid }
        return UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue { .uuid(self) }
}

extension ObjectId: _PersistableOptional {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.objectId) }
    /// A newly generated id, so every object gets its own (Realm does the same).
    public static func _strataDefault() -> ObjectId { .generate() }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> ObjectId {
        if case .objectId(let id) = value { return id }
        return ObjectId(bytes: Array(repeating: 0, count: 12))
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue { .objectId(self) }
}

extension Decimal128: _PersistableOptional {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.decimal128) }
    public static func _strataDefault() -> Decimal128 { Decimal128(0) }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Decimal128 {
        if case .decimal(let decimal) = value { return decimal }
        return Decimal128(0)
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue { .decimal(self) }
}
