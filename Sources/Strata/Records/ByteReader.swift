import Foundation
import StrataStorage

// Reads the values of the object format (ObjectFormat.swift); never traps: malformed bytes are
// `.corruption`.

struct ByteReader {
    let bytes: UnsafeRawBufferPointer
    var position = 0

    var isAtEnd: Bool { position == bytes.count }

    private func corrupt(_ what: String) -> StrataError {
        StrataError(.corruption, "object record is malformed: \(what) at byte \(position)")
    }

    mutating func byte() throws -> UInt8 {
        guard position < bytes.count else { throw corrupt("cut short") }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func varint() throws -> UInt64 {
        // Most varints (ids, counts, small numbers) are one byte.
        if position < bytes.count, bytes[position] < 0x80 {
            defer { position += 1 }
            return UInt64(bytes[position])
        }
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try self.byte()
            guard shift < 64 else { throw corrupt("varint too long") }
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    mutating func uint32() throws -> UInt32 {
        let value = try varint()
        guard let narrow = UInt32(exactly: value) else { throw corrupt("number out of range") }
        return narrow
    }

    /// A count of things still to read, each at least one byte: never more than the bytes left.
    mutating func count() throws -> Int {
        let value = try varint()
        guard value <= UInt64(bytes.count - position) else { throw corrupt("count \(value) past the end") }
        return Int(value)
    }

    mutating func take(_ count: Int) throws -> UnsafeRawBufferPointer {
        guard count >= 0, count <= bytes.count - position else { throw corrupt("length past the end") }
        defer { position += count }
        return UnsafeRawBufferPointer(rebasing: bytes[position..<(position + count)])
    }

    mutating func fixed<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let raw = try take(MemoryLayout<T>.size)
        return T(littleEndian: raw.loadUnaligned(as: T.self))
    }

    mutating func string() throws -> String {
        let raw = try take(try count())
        guard let text = String(validating: raw, as: UTF8.self) else { throw corrupt("invalid UTF-8") }
        return text
    }

    mutating func fields(depth: Int) throws -> [FieldValue.Field] {
        let count = try self.count()
        var fields: [FieldValue.Field] = []
        fields.reserveCapacity(count)
        for _ in 0..<count {
            let id = try uint32()
            fields.append(FieldValue.Field(id: id, value: try value(depth: depth)))
        }
        return fields
    }

    /// Moves past one value, checking its structure (tags, lengths, nesting) but building
    /// nothing: strings are not validated as UTF-8 until they are read.
    mutating func skipValue(depth: Int) throws {
        guard depth <= RecordCodec.maxNesting else { throw corrupt("values nested more than \(RecordCodec.maxNesting) levels deep") }
        let tag = try self.tag()
        switch tag {
        case .null, .false, .true: return
        case .int: _ = try varint()
        case .float: _ = try take(4)
        case .double, .date: _ = try take(8)
        case .string, .data: _ = try take(try count())
        case .decimal128, .uuid: _ = try take(16)
        case .objectId: _ = try take(12)
        case .link:
            _ = try uint32()
            _ = try take(try count())
        case .list, .set:
            for _ in 0..<(try count()) { try skipValue(depth: depth + 1) }
        case .map:
            for _ in 0..<(try count()) {
                _ = try take(try count())
                try skipValue(depth: depth + 1)
            }
        case .embeddedWithoutIdentity, .embedded:
            _ = try uint32()
            if tag == .embedded { _ = try varint() }
            for _ in 0..<(try count()) {
                _ = try uint32()
                try skipValue(depth: depth + 1)
            }
        }
    }

    mutating func value(depth: Int) throws -> FieldValue {
        guard depth <= RecordCodec.maxNesting else { throw corrupt("values nested more than \(RecordCodec.maxNesting) levels deep") }
        let tag = try self.tag()
        switch tag {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .int:
            let raw = try varint()
            return .int(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))
        case .float: return .float(Float(bitPattern: try fixed(UInt32.self)))
        case .double: return .double(Double(bitPattern: try fixed(UInt64.self)))
        case .string: return .string(try string())
        case .data: return .data(Data(try take(try count())))
        case .date: return .date(Double(bitPattern: try fixed(UInt64.self)))
        case .decimal128:
            let low = try fixed(UInt64.self)
            let high = try fixed(UInt64.self)
            return .decimal(Decimal128(highBits: high, lowBits: low))
        case .uuid:
            let raw = try take(16)
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
            return .uuid(UUID(uuid: uuid))
        case .objectId: return .objectId(ObjectId(bytes: Array(try take(12))))
        case .link:
            let classID = try uint32()
            return .link(ObjectKey(classID: classID, key: StorageKey(try take(try count()))))
        case .list, .set:
            let count = try self.count()
            var values: [FieldValue] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try value(depth: depth + 1)) }
            return tag == .list ? .list(values) : .set(values)
        case .map:
            let count = try self.count()
            var entries: [FieldValue.MapEntry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try string()
                entries.append(FieldValue.MapEntry(key: key, value: try value(depth: depth + 1)))
            }
            return .map(entries)
        case .embeddedWithoutIdentity, .embedded:
            let classID = try uint32()
            let id = tag == .embedded ? try varint() : 0
            return .embedded(classID: classID, id: id, fields: try fields(depth: depth + 1))
        }
    }

    /// A value's tag.
    mutating func tag() throws -> ObjectFormat.Tag {
        let byte = try self.byte()
        guard let tag = ObjectFormat.Tag(rawValue: byte) else { throw corrupt("unknown value tag \(byte)") }
        return tag
    }
}
