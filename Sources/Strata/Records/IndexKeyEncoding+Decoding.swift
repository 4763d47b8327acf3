import Foundation
import StrataStorage

// Reading entry keys back (the format: IndexKeyEncoding.swift): where the ordered value ends
// (a range walk needs the object key after it), what it holds (for the integrity check's
// messages), and the object list of a shared entry. Nothing here traps on stored bytes.

extension IndexKeyEncoding {
    /// The length of the ordered value `bytes` starts with, or nil when it is malformed.
    static func valueLength(_ bytes: UnsafeRawBufferPointer) -> Int? {
        guard let tag = bytes.first else { return nil }
        switch tag {
        case ObjectFormat.Tag.null.rawValue, ObjectFormat.Tag.false.rawValue, ObjectFormat.Tag.true.rawValue, otherTag:
            return 1
        case ObjectFormat.Tag.int.rawValue, ObjectFormat.Tag.date.rawValue, ObjectFormat.Tag.double.rawValue:
            return fixedLength(9, bytes)
        case ObjectFormat.Tag.uuid.rawValue: return fixedLength(17, bytes)
        case ObjectFormat.Tag.objectId.rawValue: return fixedLength(13, bytes)
        case ObjectFormat.Tag.string.rawValue: return stringEnd(bytes)
        default: return nil
        }
    }

    private static func fixedLength(_ length: Int, _ bytes: UnsafeRawBufferPointer) -> Int? {
        bytes.count >= length ? length : nil
    }

    /// Where the string starting after the tag at byte 0 ends (after its terminator).
    private static func stringEnd(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var position = 1
        while position < bytes.count {
            if bytes[position] != 0 {
                position += 1
                continue
            }
            guard position + 1 < bytes.count else { return nil }
            switch bytes[position + 1] {
            case 0, 1: return position + 2
            case 0xFF: position += 2
            default: return nil
            }
        }
        return nil
    }

    /// The value an ordered value stands for (a cut string's first bytes, with `isCut`), or
    /// nil when it is malformed or of no indexable kind.
    static func decodeValue(_ bytes: UnsafeRawBufferPointer) -> (value: FieldValue, isCut: Bool)? {
        guard let length = valueLength(bytes) else { return nil }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[1..<length])
        switch ObjectFormat.Tag(rawValue: bytes[0]) {
        case .null?: return (.null, false)
        case .false?: return (.bool(false), false)
        case .true?: return (.bool(true), false)
        case .int?: return (.int(Int64(bitPattern: bigEndian(payload) ^ (1 << 63))), false)
        case .date?: return (.date(double(orderedBits: bigEndian(payload))), false)
        case .double?: return (.double(double(orderedBits: bigEndian(payload))), false)
        case .uuid?:
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: payload) }
            return (.uuid(UUID(uuid: uuid)), false)
        case .objectId?: return (.objectId(ObjectId(bytes: Array(payload))), false)
        case .string?:
            var utf8: [UInt8] = []
            var position = 0
            while position < payload.count - 2 {
                utf8.append(payload[position])
                position += payload[position] == 0 ? 2 : 1
            }
            return (.string(String(decoding: utf8, as: UTF8.self)), payload[payload.count - 1] == 1)
        default: return nil
        }
    }

    private static func bigEndian(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    /// The double whose `orderedBits` are `bits` (NaN for the bits every NaN has).
    static func double(orderedBits bits: UInt64) -> Double {
        if bits == .max { return .nan }
        return Double(bitPattern: bits >> 63 == 1 ? bits & ~(1 << 63) : ~bits)
    }
}

extension IndexKeyEncoding {
    /// The value of a shared entry (one whose key has the engine's longest length): the full
    /// keys of the objects it stands for, ascending, each once — count varint │ (key length
    /// varint │ key)*. An empty value stands for the one object whose key is the key's tail.
    enum ObjectList {
        static func encode(_ keys: [StorageKey]) -> [UInt8] {
            [UInt8](encoding: Encoded(keys: keys))
        }

        private struct Encoded: ByteEncodable {
            let keys: [StorageKey]

            func write<Sink: ByteSink>(to writer: inout ByteWriter<Sink>) {
                writer.varint(UInt64(keys.count))
                for key in keys { key.withUnsafeBytes { writer.lengthPrefixed($0) } }
            }
        }

        /// The keys a shared entry's value lists; each must start with `tail`.
        /// - Throws: ``/StrataStorage/StrataError`` `.corruption` when the bytes are malformed.
        static func decode(_ bytes: UnsafeRawBufferPointer, tail: UnsafeRawBufferPointer) throws -> [StorageKey] {
            var reader = ByteReader(bytes: bytes)
            var keys: [StorageKey] = []
            for _ in 0..<(try reader.count()) {
                let key = try reader.take(try reader.count())
                guard key.starts(with: tail), key.count <= ObjectFormat.maxObjectKeyLength else {
                    throw StrataError(.corruption, "a shared index entry lists a key that does not start with the entry's own")
                }
                keys.append(StorageKey(key))
            }
            guard reader.isAtEnd else { throw StrataError(.corruption, "a shared index entry has trailing bytes") }
            return keys
        }
    }
}
