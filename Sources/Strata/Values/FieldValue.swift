import Foundation
import StrataStorage

// FieldValue: one property's value as the object layer stores it, independent of the Swift type
// the model declares. Records are arrays of FieldValues (see Records/RecordCodec.swift for the
// bytes); `_Persistable` types convert to and from it.

/// The module's name for `_FieldValue`.
typealias FieldValue = _FieldValue

/// A stored property value: how the object layer represents any persisted value internally.
/// Not for direct use; models use the Swift types. Immutable and `Sendable`. Equality is
/// equality of the stored bytes (see `FieldValue+Equality.swift`).
/// Public only because `_Persistable`'s requirements name it; not API.
public enum _FieldValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case float(Float)
    case double(Double)
    case string(String)
    case data(Data)
    /// Seconds since 2001-01-01 (`Date.timeIntervalSinceReferenceDate`), exactly.
    case date(Double)
    case decimal(Decimal128)
    case uuid(UUID)
    case objectId(ObjectId)
    /// A link to an object: its class id and key bytes.
    case link(_ObjectKey)
    case list([_FieldValue])
    case set([_FieldValue])
    /// Keys in ascending order, each once.
    case map([MapEntry])
    /// An embedded object, stored inline: its class id, its identity among the embedded objects
    /// of its parent (0 for one stored without an identity: it is known by its position), and
    /// its fields by property id.
    case embedded(classID: UInt32, id: UInt64, fields: [Field])

    /// One entry of a stored map.
    public struct MapEntry: Hashable, Sendable {
        var key: String
        var value: FieldValue
    }

    /// One property of a record: its stable property id and its value.
    public struct Field: Hashable, Sendable {
        var id: UInt32
        var value: FieldValue
    }

    var isNull: Bool { if case .null = self { return true } else { return false } }
}

/// The module's name for `_ObjectKey`.
typealias ObjectKey = _ObjectKey

/// The identity of a stored object: its class's id (which is its keyspace) and its key bytes
/// (the encoded primary key, or a generated id for classes without one).
/// Not for direct use. Immutable and `Sendable`.
/// Public only because `_FieldValue` names it; not API.
public struct _ObjectKey: Hashable, Sendable {
    var classID: UInt32
    var key: StorageKey

    init(classID: UInt32, key: StorageKey) {
        self.classID = classID
        self.key = key
    }
}

extension FieldValue {
    /// Whether this value is what a property of `descriptor` stores (null for optionals).
    func isStoredKind(of descriptor: TypeDescriptor) -> Bool {
        switch (self, descriptor.type) {
        case (.null, _): return descriptor.isOptional
        case (.bool, .bool), (.float, .float), (.double, .double), (.string, .string), (.data, .data),
             (.date, .date), (.decimal, .decimal128), (.uuid, .uuid), (.objectId, .objectId):
            return true
        case (.int, .int), (.int, .int8), (.int, .int16), (.int, .int32), (.int, .int64):
            return true
        default:
            return false
        }
    }
}
