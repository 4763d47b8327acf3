import Foundation
import StrataStorage

// Codable for model classes: declare `final class Dog: Object, Codable {}` and these
// implementations are used (they take precedence over synthesis, which cannot see through
// `@Persisted`'s managed storage). Managed and unmanaged objects encode alike.
//
// - Each stored property is encoded under its name; `LinkingObjects` are not encoded.
// - A link to an object whose class has a primary key is encoded as that key; other links and
//   embedded objects are encoded nested. Decoding accepts either form: a bare key decodes to a
//   reference that `Database.add` links to the stored object with that key (or stores when
//   there is none) without overwriting it.
// - Lists and sets are arrays, maps are keyed containers, `AnyValue` is its value.

struct CodingName: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Encodable where Self: ObjectBase {
    /// Encodes the object's stored properties by name (see the notes above).
    /// - Throws: `EncodingError` for a value the encoder refuses.
    public func encode(to encoder: any Encoder) throws {
        try encodeStoredProperties(to: encoder, depth: 0)
    }
}

extension Decodable where Self: ObjectBase {
    /// Decodes an unmanaged object; properties missing from the input take their defaults.
    /// - Throws: `DecodingError` for input of the wrong shape or type.
    public init(from decoder: any Decoder) throws {
        self.init()
        try decodeStoredProperties(from: decoder)
    }
}

extension ObjectBase {
    static let maxCodingDepth = 64

    func encodeStoredProperties(to encoder: any Encoder, depth: Int) throws {
        guard depth < Self.maxCodingDepth else {
            throw EncodingError.invalidValue(self, .init(codingPath: encoder.codingPath, debugDescription: "objects nested too deeply (a cycle of links without primary keys?)"))
        }
        guard let schema = SchemaCache.schema(for: type(of: self)) else { return }
        var container = encoder.container(keyedBy: CodingName.self)
        for property in schema.properties where property.isStored {
            try encodeValue(property.accessor.value(of: self), to: container.superEncoder(forKey: CodingName(property.name)), depth: depth)
        }
    }

    func decodeStoredProperties(from decoder: any Decoder) throws {
        guard let schema = SchemaCache.schema(for: type(of: self)) else { return }
        let container = try decoder.container(keyedBy: CodingName.self)
        for property in schema.properties where property.isStored {
            let key = CodingName(property.name)
            guard container.contains(key) else { continue }
            try property.accessor.decodeUnmanaged(self, from: container.superDecoder(forKey: key))
        }
    }
}

/// Encodes any persisted value (boxed as `Any`).
func encodeValue(_ value: Any, to encoder: any Encoder, depth: Int) throws {
    if let optional = value as? any OptionalValue, optional.isNil {
        var container = encoder.singleValueContainer()
        return try container.encodeNil()
    }
    switch value {
    case let object as Object:
        if let schema = SchemaCache.schema(for: type(of: object)), let primaryKey = schema.primaryKey {
            return try encodeValue(primaryKey.accessor.value(of: object), to: encoder, depth: depth + 1)
        }
        try object.encodeStoredProperties(to: encoder, depth: depth + 1)
    case let embedded as EmbeddedObject:
        try embedded.encodeStoredProperties(to: encoder, depth: depth + 1)
    case let collection as any EncodableElements:
        var container = encoder.unkeyedContainer()
        for element in collection.elementsForCoding { try encodeValue(element, to: container.superEncoder(), depth: depth) }
    case let map as any EncodableEntries:
        var container = encoder.container(keyedBy: CodingName.self)
        for (key, element) in map.entriesForCoding {
            try encodeValue(element, to: container.superEncoder(forKey: CodingName(key)), depth: depth)
        }
    case let any as AnyValue:
        try any.encode(to: encoder, depth: depth)
    case let enumValue as any PersistableEnum:
        try encodeValue(enumValue.rawValue, to: encoder, depth: depth)
    case let encodable as any Encodable:
        var container = encoder.singleValueContainer()
        try container.encode(encodable)
    default:
        throw EncodingError.invalidValue(value, .init(codingPath: encoder.codingPath, debugDescription: "\(type(of: value)) is not encodable"))
    }
}

/// An `Optional` of any wrapped type, seen through `Any` (to tell nil apart inside it).
protocol OptionalValue {
    var isNil: Bool { get }
    /// The wrapped value, as `Any`.
    var wrappedAny: Any? { get }
}
extension Optional: OptionalValue {
    var isNil: Bool { self == nil }
    var wrappedAny: Any? { map { $0 as Any } }
}

/// Lists and sets, seen as elements for coding.
protocol EncodableElements { var elementsForCoding: [Any] { get } }

/// Maps, seen as entries for coding.
protocol EncodableEntries { var entriesForCoding: [(String, Any)] { get } }

extension AnyValue {
    func encode(to encoder: any Encoder, depth: Int) throws {
        var single = encoder.singleValueContainer()
        switch self {
        case .none: try single.encodeNil()
        case .int(let value): try single.encode(value)
        case .bool(let value): try single.encode(value)
        case .float(let value): try single.encode(value)
        case .double(let value): try single.encode(value)
        case .string(let value): try single.encode(value)
        case .data(let value): try single.encode(value)
        case .date(let value): try single.encode(value)
        case .objectId(let value): try single.encode(value)
        case .decimal128(let value): try single.encode(value)
        case .uuid(let value): try single.encode(value)
        case .object(let object): try encodeValue(object, to: encoder, depth: depth + 1)
        case .list(let values):
            var container = encoder.unkeyedContainer()
            for value in values { try value.encode(to: container.superEncoder(), depth: depth + 1) }
        case .map(let values):
            var container = encoder.container(keyedBy: CodingName.self)
            for (key, value) in values.sorted(by: { $0.key < $1.key }) {
                try value.encode(to: container.superEncoder(forKey: CodingName(key)), depth: depth + 1)
            }
        }
    }

    /// Decodes JSON-like input: null, booleans, numbers (integers stay integers), strings,
    /// arrays and objects.
    static func decode(from decoder: any Decoder) throws -> AnyValue {
        if let single = try? decoder.singleValueContainer() {
            if single.decodeNil() { return .none }
            if let value = try? single.decode(Bool.self) { return .bool(value) }
            if let value = try? single.decode(Int.self) { return .int(value) }
            if let value = try? single.decode(Double.self) { return .double(value) }
            if let value = try? single.decode(String.self) { return .string(value) }
        }
        if var unkeyed = try? decoder.unkeyedContainer() {
            var values: [AnyValue] = []
            while !unkeyed.isAtEnd { values.append(try decode(from: try unkeyed.superDecoder())) }
            return .list(values)
        }
        let keyed = try decoder.container(keyedBy: CodingName.self)
        var values: [String: AnyValue] = [:]
        for key in keyed.allKeys { values[key.stringValue] = try decode(from: try keyed.superDecoder(forKey: key)) }
        return .map(values)
    }
}
