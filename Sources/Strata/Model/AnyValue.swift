import Foundation
import StrataStorage

/// A value of any stored type: Realm's mixed (`AnyRealmValue`). It may hold a nested list or
/// map of further `AnyValue`s, or a link to an object.
///
/// ```swift
/// @Persisted var extra: AnyValue
/// try db.write { person.extra = .map(["tags": .list([.string("a"), .int(1)])]) }
/// ```
///
/// An immutable value (an `.object` case holds a reference to a model object).
public enum AnyValue: Equatable {
    case none
    case int(Int)
    case bool(Bool)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case objectId(ObjectId)
    case decimal128(Decimal128)
    case uuid(UUID)
    case object(Object)
    case list([AnyValue])
    case map([String: AnyValue])

    /// Values are equal when they would be stored as equal bytes (see the equality table in
    /// docs/objects.md: strings by UTF-8 bytes, -0.0 is not 0.0); objects when they are the
    /// same object (``Object/isSameObject(as:)``).
    public static func == (lhs: AnyValue, rhs: AnyValue) -> Bool {
        switch (lhs, rhs) {
        case (.object(let left), .object(let right)): return left.isSameObject(as: right)
        case (.list(let left), .list(let right)): return left == right
        case (.map(let left), .map(let right)): return left == right
        case (.object, _), (_, .object), (.list, _), (_, .list), (.map, _), (_, .map): return false
        default: return (try? lhs._strataWrite(nil)) == (try? rhs._strataWrite(nil))
        }
    }
}

extension AnyValue: _Persistable {
    public static var _strataType: _TypeDescriptor { _TypeDescriptor(.any) }
    public static func _strataDefault() -> AnyValue { .none }

    public static func _strataRead(_ value: _FieldValue, _ context: Database?) -> AnyValue {
        switch value {
        case .null: return .none
        case .bool(let flag): return .bool(flag)
        case .int(let number): return .int(Int(truncatingIfNeeded: number))
        case .float(let number): return .float(number)
        case .double(let number): return .double(number)
        case .string(let text): return .string(text)
        case .data(let data): return .data(data)
        case .date(let seconds): return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .decimal(let decimal): return .decimal128(decimal)
        case .uuid(let uuid): return .uuid(uuid)
        case .objectId(let id): return .objectId(id)
        case .link:
            guard let object = Object._strataReadOptional(value, context) else { return .none }
            return .object(object)
        case .list(let elements), .set(let elements): return .list(elements.map { _strataRead($0, context) })
        case .map(let entries):
            return .map(Dictionary(entries.map { ($0.key, _strataRead($0.value, context)) }, uniquingKeysWith: { $1 }))
        case .embedded: return .none
        }
    }

    public func _strataWrite(_ context: Database?) throws -> _FieldValue {
        switch self {
        case .none: return .null
        case .int(let number): return .int(Int64(number))
        case .bool(let flag): return .bool(flag)
        case .float(let number): return .float(number)
        case .double(let number): return .double(number)
        case .string(let text): return try text._strataWrite(context)
        case .data(let data): return try data._strataWrite(context)
        case .date(let date): return .date(date.timeIntervalSinceReferenceDate)
        case .objectId(let id): return .objectId(id)
        case .decimal128(let decimal): return .decimal(decimal)
        case .uuid(let uuid): return .uuid(uuid)
        case .object(let object): return try object._strataWrite(context)
        case .list(let elements): return .list(try elements.map { try $0._strataWrite(context) })
        case .map(let values):
            var entries: [FieldValue.MapEntry] = []
            for (key, value) in values {
                try MapKeyBytes.check(key)
                entries.append(FieldValue.MapEntry(key: key, value: try value._strataWrite(context)))
            }
            return .map(entries.sorted { MapKeyBytes($0.key) < MapKeyBytes($1.key) })
        }
    }
}

extension AnyValue: _PersistableOptional {
    public static func _strataDecode(from decoder: any Decoder) throws -> AnyValue { try decode(from: decoder) }
}
