import Foundation
import StrataStorage

// A property's value inside a migration: the stored form of a scalar, or a reference to
// another migration object (a link, or an embedded object), or a collection of those. Links
// point at objects rather than keys, so a migration may change primary keys, turn a class
// embedded or top-level, and delete objects; keys and links are worked out when it is written
// (MigrationWriter.swift).

/// One value of a ``MigrationObject`` property.
indirect enum MigrationValue {
    /// A value without links or embedded objects (null included), as stored.
    case scalar(FieldValue)
    /// A link or an embedded object; nil for null.
    case object(MigrationObject?)
    case list([MigrationValue])
    case set([MigrationValue])
    case map([(key: String, value: MigrationValue)])

    static var null: MigrationValue { .scalar(.null) }

    var isNull: Bool {
        switch self {
        case .scalar(.null), .object(nil): return true
        default: return false
        }
    }

    /// The value a stored field holds: links resolved through `resolveLink` (nil for a link to
    /// an object that is not there), embedded objects made by `embedded`.
    static func decoding(
        _ field: FieldValue, resolveLink: (ObjectKey) -> MigrationObject?, embedded: (UInt32, [FieldValue.Field]) -> MigrationObject?
    ) -> MigrationValue {
        func decode(_ field: FieldValue) -> MigrationValue {
            switch field {
            case .link(let key): return .object(resolveLink(key))
            case .embedded(let classID, _, let fields): return .object(embedded(classID, fields))
            case .list(let elements): return .list(elements.map(decode))
            case .set(let elements): return .set(elements.map(decode))
            case .map(let entries): return .map(entries.map { (key: $0.key, value: decode($0.value)) })
            default: return .scalar(field)
            }
        }
        return decode(field)
    }

    /// The value as a migration block reads it: `Int` for every integer width, `Float`,
    /// `Double`, `Bool`, `String`, `Data`, `Date`, `Decimal128`, `UUID`, `ObjectId`, an
    /// ``AnyValue`` for a mixed property (a ``MigrationObject`` for a link in it, and arrays
    /// or dictionaries for its collections that hold one), a ``MigrationObject`` for a link or
    /// an embedded object, an array for a list or a set, a `[String: Any]` for a map; nil for
    /// null.
    func swiftValue(mixed: Bool) -> Any? {
        if mixed, let value = anyValue { return value }
        switch self {
        case .scalar(.null), .object(nil): return nil
        case .scalar(let field): return mixed ? AnyValue._strataRead(field, nil) : Self.plain(field)
        case .object(let object?): return object
        case .list(let elements), .set(let elements): return elements.map { $0.swiftValue(mixed: mixed) ?? Optional<Any>.none as Any }
        case .map(let entries):
            return Dictionary(entries.map { ($0.key, $0.value.swiftValue(mixed: mixed) ?? Optional<Any>.none as Any) }, uniquingKeysWith: { $1 })
        }
    }

    /// A mixed value as an ``AnyValue``, when it holds no object (an ``AnyValue`` holds only
    /// model objects, which a migration has none of): a list or a map of values, or a scalar.
    private var anyValue: AnyValue? {
        switch self {
        case .scalar(let field): return AnyValue._strataRead(field, nil)
        case .object: return nil
        case .list(let elements), .set(let elements):
            let values = elements.compactMap(\.anyValue)
            return values.count == elements.count ? .list(values) : nil
        case .map(let entries):
            let values = entries.compactMap { entry in entry.value.anyValue.map { (entry.key, $0) } }
            return values.count == entries.count ? .map(Dictionary(values, uniquingKeysWith: { $1 })) : nil
        }
    }

    /// The Swift value of a stored scalar.
    private static func plain(_ field: FieldValue) -> Any? {
        switch field {
        case .null: return nil
        case .bool(let flag): return flag
        case .int(let number): return Int(truncatingIfNeeded: number)
        case .float(let number): return number
        case .double(let number): return number
        case .string(let text): return text
        case .data(let data): return data
        case .date(let seconds): return Date(timeIntervalSinceReferenceDate: seconds)
        case .decimal(let decimal): return decimal
        case .uuid(let uuid): return uuid
        case .objectId(let id): return id
        case .link, .list, .set, .map, .embedded: return nil
        }
    }
}
