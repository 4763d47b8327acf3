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
        guard bytes.count <= Int(UInt16.max) else { return nil }
        return StorageKey(bytes)
    }

    /// A new generated key for an object without a primary key.
    static func generatedKey() -> StorageKey {
        StorageKey(ObjectId().bytes)
    }
}
