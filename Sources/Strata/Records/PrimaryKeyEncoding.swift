import Foundation
import StrataStorage

// An object's storage key.
//
// - With a primary key: the key's value, encoded so equal values give equal bytes:
//   Int as 8 bytes big-endian with the sign bit flipped (so keys sort as the integers do),
//   String as UTF-8, ObjectId as its 12 bytes, UUID as its 16 bytes. An optional primary key
//   adds one byte in front: 0 for nil, 1 before a value.
// - Without one: a generated ObjectId's 12 bytes, fixed when the object is added.

enum PrimaryKeyEncoding {
    /// The storage key for a primary-key value, or nil when the value is not of a key type.
    static func key(for value: FieldValue, optional: Bool) -> StorageKey? {
        if !optional, case .int(let number) = value {
            // The common key, without building its bytes: the same 8 bytes, inline.
            return StorageKey(UInt64(bitPattern: number) ^ (1 << 63))
        }
        var bytes: [UInt8] = []
        if optional {
            if value.isNull { return StorageKey([0]) }
            bytes.append(1)
        }
        switch value {
        case .int(let number):
            withUnsafeBytes(of: (UInt64(bitPattern: number) ^ (1 << 63)).bigEndian) { bytes.append(contentsOf: $0) }
        case .string(let text):
            bytes.append(contentsOf: text.utf8)
        case .objectId(let id):
            bytes.append(contentsOf: id.bytes)
        case .uuid(let uuid):
            withUnsafeBytes(of: uuid.uuid) { bytes.append(contentsOf: $0) }
        default:
            return nil
        }
        guard bytes.count <= ObjectFormat.maxObjectKeyLength else { return nil }
        return StorageKey(bytes)
    }


    /// The primary-key value a storage key encodes, for a key property of `type`.
    static func value(of key: StorageKey, optional: Bool, type: PropertyType) -> FieldValue? {
        var bytes = key.bytes
        if optional {
            guard let marker = bytes.first else { return nil }
            if marker == 0 { return .null }
            bytes.removeFirst()
        }
        switch type {
        case .int:
            guard bytes.count == 8 else { return nil }
            let raw = bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            return .int(Int64(bitPattern: raw ^ (1 << 63)))
        case .string:
            return String(validating: bytes, as: UTF8.self).map(FieldValue.string)
        case .objectId:
            return bytes.count == 12 ? .objectId(ObjectId(bytes: bytes)) : nil
        case .uuid:
            guard bytes.count == 16 else { return nil }
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyBytes(from: bytes) }
            return .uuid(UUID(uuid: uuid))
        default:
            return nil
        }
    }

    /// A new generated key for an object without a primary key.
    static func generatedKey() -> StorageKey {
        StorageKey(ObjectId.generate().bytes)
    }
}
