import Foundation
import StrataStorage

// The keys of secondary-index entries; their bytes are specified in ObjectFormat.swift:
//
//   entry key := class id u32 BE │ property id u32 BE │ ordered value │ object key
//
// Byte order of ordered values is the order `FieldOrder.compare` gives values of one kind, null
// first; an ordered value is self-delimiting, so the object key follows it directly. It is
// monotone but not always one-to-one: strings longer than `maxStringBytes` that share their
// first 1,024 bytes, -0 and +0, and NaNs share an encoding, so a lookup finds a superset of the
// matches and the query tests each candidate with its whole predicate.
//
// An entry key longer than the engine's longest key (only with an object key of more than
// ~63,000 bytes) is cut to that length: its object-key part is then a prefix, and the entry's
// value lists the full keys of the objects it stands for (`ObjectList`). Every other entry has
// an empty value.

enum IndexKeyEncoding {
    /// The most bytes of a string an ordered value holds; longer strings are cut here (in the
    /// UTF-8 bytes, possibly inside a character) and marked as cut.
    static let maxStringBytes = 1_024
    /// The tag of a value of a kind no index holds (from a damaged or foreign record).
    static let otherTag: UInt8 = 0xFF
    /// The length of the class id and property id in front of every entry key.
    static let propertyPrefixLength = 8

    /// The 8 bytes every entry of one indexed property starts with.
    static func propertyPrefix(classID: UInt32, propertyID: UInt32) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(propertyPrefixLength)
        appendBigEndian(classID, to: &bytes)
        appendBigEndian(propertyID, to: &bytes)
        return bytes
    }

    /// The bytes every entry of `value` in one indexed property starts with: the property
    /// prefix and the ordered value.
    static func valuePrefix(classID: UInt32, propertyID: UInt32, value: FieldValue) -> [UInt8] {
        var bytes = propertyPrefix(classID: classID, propertyID: propertyID)
        appendValue(value, to: &bytes)
        return bytes
    }

    /// The key of the entry saying that `object` holds the value `valuePrefix` ends with, cut
    /// to the engine's longest key.
    static func entryKey(valuePrefix: [UInt8], object: StorageKey) -> StorageKey {
        var bytes = valuePrefix
        let room = ObjectFormat.maxStorageKeyLength - bytes.count
        object.withUnsafeBytes { bytes.append(contentsOf: $0.prefix(room)) }
        return StorageKey(bytes)
    }

    /// Whether an entry key has the engine's longest length, so that its object-key part may
    /// be cut and its value may list several objects.
    static func mayBeShared(_ key: StorageKey) -> Bool {
        key.count == ObjectFormat.maxStorageKeyLength
    }

    /// Whether the ordered value of `value` stands for exactly the values equal to it in
    /// `FieldOrder.compare` (false for cut strings, NaN dates, and mixed numbers that are NaN or that several
    /// integers round to).
    static func isExact(_ value: FieldValue) -> Bool {
        switch value {
        case .string(let text): return text.utf8.count <= maxStringBytes
        case .date(let seconds): return !seconds.isNaN
        case .double(let number): return !number.isNaN && abs(number) < 0x1p53
        default: return true
        }
    }

    /// Appends the ordered value of `value`.
    static func appendValue(_ value: FieldValue, to bytes: inout [UInt8]) {
        switch value {
        case .null: bytes.append(ObjectFormat.Tag.null.rawValue)
        case .bool(let flag): bytes.append((flag ? ObjectFormat.Tag.true : .false).rawValue)
        case .int(let number):
            bytes.append(ObjectFormat.Tag.int.rawValue)
            appendBigEndian(UInt64(bitPattern: number) ^ (1 << 63), to: &bytes)
        case .string(let text):
            bytes.append(ObjectFormat.Tag.string.rawValue)
            appendString(text, to: &bytes)
        case .date(let seconds):
            bytes.append(ObjectFormat.Tag.date.rawValue)
            appendBigEndian(orderedBits(seconds), to: &bytes)
        case .double(let number):
            bytes.append(ObjectFormat.Tag.double.rawValue)
            appendBigEndian(orderedBits(number), to: &bytes)
        case .uuid(let uuid):
            bytes.append(ObjectFormat.Tag.uuid.rawValue)
            withUnsafeBytes(of: uuid.uuid) { bytes.append(contentsOf: $0) }
        case .objectId(let id):
            bytes.append(ObjectFormat.Tag.objectId.rawValue)
            bytes.append(contentsOf: id.bytes)
        default:
            bytes.append(otherTag)
        }
    }

    /// The value the entries of a mixed (`AnyValue`) property are made from: a number as the
    /// `Double` it compares as (`FieldOrder.compare` compares numbers of different kinds by
    /// their `Double` values), so 3, 3.0 and `Float(3)` share entries and numbers of every
    /// kind are in one ordered run; other values as themselves.
    static func mixedValue(_ value: FieldValue) -> FieldValue {
        switch value {
        case .int(let number): return .double(Double(number))
        case .float(let number): return .double(Double(number))
        default: return value
        }
    }

    /// A string's UTF-8 bytes (at most `maxStringBytes`) with 0x00 escaped as 0x00 0xFF, then
    /// 0x00 0x00 (whole) or 0x00 0x01 (cut).
    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        let utf8 = text.utf8
        var written = 0
        for byte in utf8 {
            guard written < maxStringBytes else { break }
            bytes.append(byte)
            if byte == 0 { bytes.append(0xFF) }
            written += 1
        }
        bytes.append(0)
        bytes.append(utf8.count > maxStringBytes ? 1 : 0)
    }

    /// A double's bits, so that unsigned order is numeric order: negative numbers inverted,
    /// others with the sign bit set. -0 is +0, and every NaN sorts after +infinity.
    static func orderedBits(_ number: Double) -> UInt64 {
        if number.isNaN { return .max }
        let bits = (number == 0 ? 0 : number).bitPattern
        return bits >> 63 == 1 ? ~bits : bits | (1 << 63)
    }

    private static func appendBigEndian<T: FixedWidthInteger>(_ value: T, to bytes: inout [UInt8]) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// The smallest byte string greater than every string starting with `bytes`, or nil when
    /// there is none (`bytes` is all 0xFF).
    static func prefixSuccessor(_ bytes: [UInt8]) -> [UInt8]? {
        var successor = bytes
        while let last = successor.last {
            if last < 0xFF {
                successor[successor.count - 1] = last + 1
                return successor
            }
            successor.removeLast()
        }
        return nil
    }
}
