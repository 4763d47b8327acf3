/// An enum a `@Persisted` property can hold, stored as its raw value (an integer or a string).
///
/// ```swift
/// enum Size: String, PersistableEnum { case small, large }
/// @Persisted var size: Size?
/// ```
///
/// A stored raw value that no case matches reads as the first case.
public protocol PersistableEnum: _PersistableOptional, RawRepresentable, CaseIterable
where RawValue: _PersistableOptional {}

extension PersistableEnum {
    public static var _strataType: _TypeDescriptor { RawValue._strataType }
    public static func _strataDefault() -> Self { allCases.first! }
    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> Self {
        Self(rawValue: RawValue._strataRead(value, context)) ?? _strataDefault()
    }
    public func _strataWrite(_ context: Database?) throws -> _FieldValue { try rawValue._strataWrite(context) }
    public static func _strataDecode(from decoder: any Decoder) throws -> Self {
        let raw = try RawValue._strataDecode(from: decoder)
        guard let value = Self(rawValue: raw) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(raw) is not a case of \(Self.self)"))
        }
        return value
    }
}
