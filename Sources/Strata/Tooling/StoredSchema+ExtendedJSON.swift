import Foundation
import StrataStorage

// Objects as MongoDB Extended JSON v2, canonical mode (what `mongoexport --jsonFormat=canonical`
// writes and `mongoimport` reads), decoded from the stored records by the stored schema alone.
//
// | stored                | Extended JSON                                                   |
// |-----------------------|-----------------------------------------------------------------|
// | Int, Int64            | {"$numberLong": "42"}                                           |
// | Int8, Int16, Int32    | {"$numberInt": "42"}                                            |
// | Double, Float         | {"$numberDouble": "1.5"} ("Infinity", "-Infinity", "NaN")       |
// | Bool, String, nil     | true / "text" / null                                            |
// | Date                  | {"$date": {"$numberLong": "<ms since 1970>"}} (nearest whole ms) |
// | Decimal128            | {"$numberDecimal": "1.50"}                                      |
// | ObjectId              | {"$oid": "<24 hex digits>"}                                     |
// | UUID                  | {"$binary": {"base64": "…", "subType": "04"}}                   |
// | Data                  | {"$binary": {"base64": "…", "subType": "00"}}                   |
// | link                  | the target's primary key as above; {"$oid"} of its generated key |
// | link in an AnyValue   | {"$ref": "Dog", "$id": <the target's key as above>}             |
// | embedded object       | a nested document of its properties                             |
// | List, MutableSet      | an array; Map: a document                                       |
//
// A document starts with "_id": the primary key's value (the property is also listed under
// its own name when that is not "_id"), or the generated key as an ObjectId. Properties follow
// in catalog order. A property an old record has no field for is written as its type's empty
// value (0, "", false, [], {}) or null.

extension StoredSchema {
    /// Calls `body` with the Extended JSON document of each object of `storedClass` that
    /// `filter` matches (every object without one), in key order, until it returns false.
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` when a record does not decode or holds a value
    ///   its property's type cannot hold; what `body` throws.
    /// - Complexity: O(n) records read for the n objects of the class.
    public func forEachDocument(
        of storedClass: StoredClass, in snapshot: Snapshot, where filter: StoredObjectFilter? = nil,
        _ body: (JSONValue) throws -> Bool
    ) throws {
        for entry in snapshot.entries(in: Keyspace(storedClass.id)) {
            let fields = try snapshot.withValue(of: entry) { try RecordCodec.decodeStoredFields($0) }
            if let filter, !filter.matches(Dictionary(fields.map { ($0.id, $0.value) }, uniquingKeysWith: { first, _ in first })) {
                continue
            }
            var members = [JSONValue.Member("_id", try objectKeyJSON(ObjectKey(classID: storedClass.id, key: entry.key)))]
            members += try propertyMembers(fields, of: storedClass).filter { $0.key != "_id" }
            guard try body(.object(members)) else { return }
        }
    }

    /// The members of `fields` by the properties of `storedClass`, in catalog order.
    private func propertyMembers(_ fields: [FieldValue.Field], of storedClass: StoredClass) throws -> [JSONValue.Member] {
        let values = Dictionary(fields.map { ($0.id, $0.value) }, uniquingKeysWith: { first, _ in first })
        return try storedClass.properties.map { property in
            let value = values[property.id] ?? property.type.emptyValue
            do {
                return .init(property.name, try extendedJSON(value, type: property.type))
            } catch {
                throw StrataError.inContext("\(storedClass.name).\(property.name)", error)
            }
        }
    }

    /// The Extended JSON of a value a property of `type` holds.
    func extendedJSON(_ value: FieldValue, type: TypeDescriptor) throws -> JSONValue {
        switch (value, type.type) {
        case (.null, _):
            return .null
        case (.int(let number), .int8), (.int(let number), .int16), (.int(let number), .int32):
            return .object([.init("$numberInt", .string(String(number)))])
        case (.list(let elements), .list(let element)), (.set(let elements), .set(let element)):
            return .array(try elements.map { try extendedJSON($0, type: element) })
        case (.map(let entries), .map(let element)):
            return .object(try entries.map { .init($0.key, try extendedJSON($0.value, type: element)) })
        case (.link(let key), .object):
            return try objectKeyJSON(key)
        case (.embedded(let classID, _, let fields), .object):
            guard let embedded = storedClass(id: classID), embedded.isEmbedded else {
                throw StrataError(.corruption, "an embedded value names class id \(classID), which is not an embedded class")
            }
            return .object(try propertyMembers(fields, of: embedded))
        case (_, .any):
            return try mixedJSON(value)
        default:
            guard value.isStoredKind(of: type), let scalar = Self.scalarJSON(value) else {
                throw StrataError(.corruption, "a stored value does not fit the type \(type)")
            }
            return scalar
        }
    }

    /// An AnyValue: scalars as themselves, links as DBRefs, collections element by element.
    private func mixedJSON(_ value: FieldValue) throws -> JSONValue {
        switch value {
        case .link(let key):
            guard let target = storedClass(id: key.classID) else {
                throw StrataError(.corruption, "a link names class id \(key.classID), which the catalog does not hold")
            }
            return .object([.init("$ref", .string(target.name)), .init("$id", try objectKeyJSON(key))])
        case .list(let elements): return .array(try elements.map(mixedJSON))
        case .map(let entries): return .object(try entries.map { .init($0.key, try mixedJSON($0.value)) })
        default:
            guard let scalar = Self.scalarJSON(value) else {
                throw StrataError(.corruption, "an AnyValue holds a value of a kind it cannot hold")
            }
            return scalar
        }
    }

    /// The key of an object: its primary key's value, or its generated ObjectId.
    func objectKeyJSON(_ key: ObjectKey) throws -> JSONValue {
        guard let target = storedClass(id: key.classID), !target.isEmbedded else {
            throw StrataError(.corruption, "a link names class id \(key.classID), which is not a stored class")
        }
        guard let primaryKey = target.primaryKey else {
            guard let id = ObjectId(validatingBytes: key.key.bytes) else {
                throw StrataError(.corruption, "a \(target.name) key is not a generated ObjectId")
            }
            return .object([.init("$oid", .string(id.description))])
        }
        guard let value = PrimaryKeyEncoding.value(of: key.key, optional: primaryKey.isOptional, type: primaryKey.type.type) else {
            throw StrataError(.corruption, "a \(target.name) key does not decode as its primary key \(primaryKey.name)")
        }
        return try extendedJSON(value, type: primaryKey.type)
    }

    /// A scalar's canonical Extended JSON; nil for links and containers.
    static func scalarJSON(_ value: FieldValue) -> JSONValue? {
        func wrapped(_ key: String, _ inner: JSONValue) -> JSONValue { .object([.init(key, inner)]) }
        func binary(_ bytes: some Sequence<UInt8>, _ subType: String) -> JSONValue {
            wrapped("$binary", .object([.init("base64", .string(Data(bytes).base64EncodedString())), .init("subType", .string(subType))]))
        }
        switch value {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .int(let number): return wrapped("$numberLong", .string(String(number)))
        case .float(let number): return wrapped("$numberDouble", .string(doubleText(Double(number))))
        case .double(let number): return wrapped("$numberDouble", .string(doubleText(number)))
        case .string(let text): return .string(text)
        case .data(let bytes): return binary(bytes, "00")
        case .date(let seconds): return wrapped("$date", wrapped("$numberLong", .string(String(milliseconds(seconds)))))
        case .decimal(let number): return wrapped("$numberDecimal", .string(number.stringValue))
        case .uuid(let uuid): return binary(withUnsafeBytes(of: uuid.uuid) { Array($0) }, "04")
        case .objectId(let id): return wrapped("$oid", .string(id.description))
        case .link, .list, .set, .map, .embedded: return nil
        }
    }

    /// Canonical Extended JSON's text of a double: Swift's shortest exact form.
    static func doubleText(_ number: Double) -> String {
        if number.isNaN { return "NaN" }
        if number.isInfinite { return number < 0 ? "-Infinity" : "Infinity" }
        return "\(number)"
    }

    /// Milliseconds since 1970 (to the nearest) of seconds since 2001; clamped to Int64.
    static func milliseconds(_ seconds: Double) -> Int64 {
        let value = ((seconds + Date.timeIntervalBetween1970AndReferenceDate) * 1000).rounded(.toNearestOrAwayFromZero)
        guard value.isFinite else { return value.isNaN ? 0 : (value < 0 ? .min : .max) }
        return value >= 9.2e18 ? .max : (value <= -9.2e18 ? .min : Int64(value))
    }
}

extension TypeDescriptor {
    /// What a property of this type reads as when a record has no field for it.
    var emptyValue: FieldValue {
        if isOptional { return .null }
        switch type {
        case .bool: return .bool(false)
        case .int, .int8, .int16, .int32, .int64: return .int(0)
        case .float: return .float(0)
        case .double: return .double(0)
        case .string: return .string("")
        case .data: return .data(Data())
        case .list: return .list([])
        case .set: return .set([])
        case .map: return .map([])
        default: return .null
        }
    }
}
