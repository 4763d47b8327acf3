import Foundation
import StrataStorage

// The bytes of an object record: the value stored under the object's key in its class's
// keyspace. Spec (also in docs/objects.md):
//
//   record   := version u8 (= 1) │ field count varint │ field*
//   field    := property id varint │ value
//   value    := tag u8 │ payload
//
//   tag  payload
//   0    null
//   1/2  false / true
//   3    int: zigzag varint
//   4    float: 4 bytes IEEE 754, little-endian
//   5    double: 8 bytes
//   6    string: length varint │ UTF-8
//   7    data: length varint │ bytes
//   8    date: 8-byte double, seconds since 2001-01-01
//   9    decimal128: low u64 │ high u64
//   10   uuid: 16 bytes
//   11   objectId: 12 bytes
//   12   link: class id varint │ key length varint │ key bytes
//   13   list: count varint │ value*
//   14   set: count varint │ value*
//   15   map: count varint │ (key length varint │ UTF-8 key │ value)*
//   16   embedded object without identity: class id varint │ field count varint │ field*
//   17   embedded object: class id varint │ identity varint │ field count varint │ field*
//        (fields by property id; the identity, never 0, tells the object from its siblings in
//        its parent, so that a held reference follows it when the list around it changes)
//
// Fields whose property id the reader does not know are skipped (a removed property); a
// property with no field takes its default (a property added later). Decoding never traps:
// malformed bytes are `.corruption`.

enum RecordCodec {
    static let version: UInt8 = 1
    /// How deep containers (lists, sets, maps, embedded objects) may nest in one property's
    /// value: 100 levels, as Realm allows. Writes refuse a deeper value (`.invalidValue`, see
    /// `FieldValue.checkNesting`); reads take it as corruption. The same number on both sides,
    /// so every value a write accepts, a read returns.
    static let maxNesting = 100

    /// Appends the record of an object's fields (in property order) to `bytes`.
    static func encode(_ fields: [FieldValue], schema: ObjectSchema, appendingTo bytes: inout [UInt8]) {
        fields.withUnsafeBufferPointer {
            bytes.append(encoding: ObjectRecord(fields: $0, layout: schema.storedFieldLayout))
        }
    }

    /// Appends the record of an object's fields (in property order) to `buffer`.
    static func encode(_ fields: UnsafeBufferPointer<FieldValue>, schema: ObjectSchema, appendingTo buffer: ByteBuffer) {
        let record = ObjectRecord(fields: fields, layout: schema.storedFieldLayout)
        buffer.append { record.write(to: &$0) }
    }

    /// Appends the record of an unmanaged object's properties to `buffer`, written straight
    /// from the object (`PropertyAccessing.writeField`); nothing when it throws.
    /// - Throws: `.invalidValue` naming the class and property whose value cannot be stored.
    static func encode(propertiesOf object: ObjectBase, schema: ObjectSchema, context: Database, appendingTo buffer: ByteBuffer) throws {
        let layout = schema.storedFieldLayout
        // Through a buffer pointer: each accessor is used in place, not copied out of the array.
        try schema.accessors.withUnsafeBufferPointer { accessors in
            try buffer.append { writer in
                writer.byte(RecordCodec.version)
                writer.varint(UInt64(layout.count))
                for field in layout {
                    writer.varint(UInt64(field.id))
                    do {
                        try accessors[field.index].writeField(of: object, to: &writer, context: context)
                    } catch {
                        throw StrataError.inContext("\(schema.className).\(schema.properties[field.index].name)", error)
                    }
                }
            }
        }
    }

    /// An object record to encode: fields in property order, and the stored fields' layout.
    private struct ObjectRecord: ByteEncodable {
        let fields: UnsafeBufferPointer<FieldValue>
        let layout: [(id: UInt32, index: Int)]

        func write<Sink: ByteSink>(to writer: inout ByteWriter<Sink>) {
            writer.byte(RecordCodec.version)
            writer.varint(UInt64(layout.count))
            for field in layout {
                writer.varint(UInt64(field.id))
                writer.value(fields[field.index])
            }
        }
    }

    /// Decodes a record straight into fields in property order (defaults for properties the
    /// record does not hold; fields of removed properties skipped). With `only`, just the
    /// properties it flags are decoded; the others keep their defaults.
    /// - Throws: ``StrataError`` `.corruption` when the bytes are malformed.
    static func decodeFields(
        _ bytes: UnsafeRawBufferPointer, schema: ObjectSchema, only wanted: [Bool]? = nil
    ) throws -> [FieldValue] {
        var reader = try recordReader(bytes)
        var fields = schema.defaultFields
        let count = try reader.count()
        for _ in 0..<count {
            let id = try reader.uint32()
            if let index = schema.propertyIndex(forID: id), wanted?[index] ?? true {
                fields[index] = try reader.value(depth: 0)
            } else {
                try reader.skipValue(depth: 0)
            }
        }
        guard reader.isAtEnd else { throw StrataError(.corruption, "object record has trailing bytes") }
        return fields
    }

    /// Decodes one field of a record, skipping over the others; nil when the record does not
    /// hold it. Checks only the bytes it walks over.
    /// - Throws: ``StrataError`` `.corruption` when those bytes are malformed.
    static func decodeField(_ bytes: UnsafeRawBufferPointer, propertyID: UInt32) throws -> FieldValue? {
        var reader = try recordReader(bytes)
        let count = try reader.count()
        for _ in 0..<count {
            if try reader.uint32() == propertyID { return try reader.value(depth: 0) }
            try reader.skipValue(depth: 0)
        }
        return nil
    }

    /// Decodes a record without a schema: its fields by property id, in stored order (records
    /// are self-describing). For records of classes this process has no Swift class for.
    /// - Throws: ``StrataError`` `.corruption` when the bytes are malformed.
    static func decodeStoredFields(_ bytes: UnsafeRawBufferPointer) throws -> [FieldValue.Field] {
        var reader = try recordReader(bytes)
        let fields = try reader.fields(depth: 0)
        guard reader.isAtEnd else { throw StrataError(.corruption, "object record has trailing bytes") }
        return fields
    }

    /// The record of fields by property id (see `decodeStoredFields`).
    static func encode(storedFields fields: [FieldValue.Field]) -> [UInt8] {
        [UInt8](encoding: StoredFieldsRecord(fields: fields))
    }

    private struct StoredFieldsRecord: ByteEncodable {
        let fields: [FieldValue.Field]

        func write<Sink: ByteSink>(to writer: inout ByteWriter<Sink>) {
            writer.byte(RecordCodec.version)
            writer.fields(fields)
        }
    }

    private static func recordReader(_ bytes: UnsafeRawBufferPointer) throws -> ByteReader {
        var reader = ByteReader(bytes: bytes)
        let version = try reader.byte()
        guard version == RecordCodec.version else {
            throw StrataError(.corruption, "object record version \(version) is not supported")
        }
        return reader
    }
}

/// Where a ``ByteWriter`` puts its bytes: a ``ByteCounter`` that only counts them, a
/// ``RawByteSink`` that stores them in memory sized by a count first (encoding runs the same
/// code twice, so the size and the bytes cannot disagree), or a ``GrowingByteSink`` that grows
/// a ``ByteBuffer`` as it goes (one pass).
protocol ByteSink {
    mutating func write(_ byte: UInt8)
    mutating func write(_ bytes: UnsafeRawBufferPointer)
    mutating func write<T: FixedWidthInteger>(littleEndian value: T)
    /// A string's UTF-8 bytes (not prefixed).
    mutating func write(utf8 text: String)
}

extension ByteSink {
    /// Copies the string's bytes from its contiguous UTF-8 storage.
    mutating func write(utf8 text: String) {
        // A native string's bytes are contiguous: no copy of the string (and no retain).
        if text.utf8.withContiguousStorageIfAvailable({ write(UnsafeRawBufferPointer($0)) }) != nil { return }
        var text = text
        text.withUTF8 { write(UnsafeRawBufferPointer($0)) }
    }
}

/// Counts the bytes a ``ByteWriter`` would write.
struct ByteCounter: ByteSink {
    private(set) var count = 0
    mutating func write(_ byte: UInt8) { count += 1 }
    mutating func write(_ bytes: UnsafeRawBufferPointer) { count += bytes.count }
    mutating func write<T: FixedWidthInteger>(littleEndian value: T) { count += MemoryLayout<T>.size }
    mutating func write(utf8 text: String) { count += text.utf8.count }
}

/// Stores bytes at successive positions of memory the caller sized with a ``ByteCounter``
/// pass over the same values (checked in debug builds).
struct RawByteSink: ByteSink {
    private let buffer: UnsafeMutableRawBufferPointer
    private(set) var position = 0

    init(_ buffer: UnsafeMutableRawBufferPointer) { self.buffer = buffer }

    var isFull: Bool { position == buffer.count }

    mutating func write(_ byte: UInt8) {
        assert(position < buffer.count)
        buffer.baseAddress.unsafelyUnwrapped.storeBytes(of: byte, toByteOffset: position, as: UInt8.self)
        position += 1
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) {
        assert(position + bytes.count <= buffer.count)
        guard let source = bytes.baseAddress else { return }
        (buffer.baseAddress.unsafelyUnwrapped + position).copyMemory(from: source, byteCount: bytes.count)
        position += bytes.count
    }

    mutating func write<T: FixedWidthInteger>(littleEndian value: T) {
        assert(position + MemoryLayout<T>.size <= buffer.count)
        buffer.baseAddress.unsafelyUnwrapped.storeBytes(of: value.littleEndian, toByteOffset: position, as: T.self)
        position += MemoryLayout<T>.size
    }

}

/// Writes the values of the record format (see the spec at the top of this file) to a sink.
struct ByteWriter<Sink: ByteSink> {
    var sink: Sink

    init(_ sink: Sink) { self.sink = sink }

    mutating func byte(_ byte: UInt8) { sink.write(byte) }

    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            sink.write(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        sink.write(UInt8(value))
    }

    mutating func fixed<T: FixedWidthInteger>(_ value: T) { sink.write(littleEndian: value) }

    /// Big-endian, so that byte order is numeric order (index keys).
    mutating func bigEndian<T: FixedWidthInteger>(_ value: T) { sink.write(littleEndian: value.byteSwapped) }

    mutating func lengthPrefixed(_ bytes: UnsafeRawBufferPointer) {
        varint(UInt64(bytes.count))
        sink.write(bytes)
    }

    /// A string's UTF-8 bytes, length-prefixed.
    mutating func utf8(_ text: String) {
        varint(UInt64(text.utf8.count))
        sink.write(utf8: text)
    }

    // One writer per tag, for `value(_:)` and for the scalar property types that write
    // themselves (ScalarRecordValue).
    mutating func null() { byte(0) }
    mutating func bool(_ flag: Bool) { byte(flag ? 2 : 1) }
    mutating func int(_ number: Int64) {
        byte(3)
        varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
    }
    mutating func float(_ number: Float) { byte(4); fixed(number.bitPattern) }
    mutating func double(_ number: Double) { byte(5); fixed(number.bitPattern) }
    mutating func string(_ text: String) { byte(6); utf8(text) }
    mutating func data(_ data: Data) { byte(7); data.withUnsafeBytes { lengthPrefixed($0) } }
    mutating func date(_ seconds: Double) { byte(8); fixed(seconds.bitPattern) }
    mutating func decimal(_ decimal: Decimal128) { byte(9); fixed(decimal.lowBits); fixed(decimal.highBits) }
    mutating func uuid(_ uuid: UUID) {
        byte(10)
        withUnsafeBytes(of: uuid.uuid) { sink.write($0) }
    }
    mutating func objectId(_ id: ObjectId) { byte(11); id.bytes.withUnsafeBytes { sink.write($0) } }

    mutating func value(_ value: FieldValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .int(let number): int(number)
        case .float(let number): float(number)
        case .double(let number): double(number)
        case .string(let text): string(text)
        case .data(let data): self.data(data)
        case .date(let seconds): date(seconds)
        case .decimal(let decimal): self.decimal(decimal)
        case .uuid(let uuid): self.uuid(uuid)
        case .objectId(let id): objectId(id)
        case .link(let key):
            byte(12)
            varint(UInt64(key.classID))
            key.key.withUnsafeBytes { lengthPrefixed($0) }
        case .list(let values), .set(let values):
            if case .list = value { byte(13) } else { byte(14) }
            varint(UInt64(values.count))
            for element in values { self.value(element) }
        case .map(let entries):
            byte(15)
            varint(UInt64(entries.count))
            for entry in entries {
                utf8(entry.key)
                self.value(entry.value)
            }
        case .embedded(let classID, let id, let fields):
            byte(id == 0 ? 16 : 17)
            varint(UInt64(classID))
            if id != 0 { varint(id) }
            self.fields(fields)
        }
    }

    mutating func fields(_ fields: [FieldValue.Field]) {
        varint(UInt64(fields.count))
        for field in fields {
            varint(UInt64(field.id))
            value(field.value)
        }
    }
}

/// Something written in the record format: encoded by running `write` twice, once to count
/// its bytes and once to store them.
protocol ByteEncodable {
    func write<Sink: ByteSink>(to writer: inout ByteWriter<Sink>)
}

extension Array where Element == UInt8 {
    /// Appends the bytes of `value` with one growth of the array (no per-byte appends).
    mutating func append(encoding value: some ByteEncodable) {
        var counter = ByteWriter(ByteCounter())
        value.write(to: &counter)
        let count = counter.sink.count
        let start = self.count
        append(contentsOf: repeatElement(0, count: count))
        withUnsafeMutableBytes { bytes in
            var writer = ByteWriter(RawByteSink(UnsafeMutableRawBufferPointer(rebasing: bytes[start..<(start + count)])))
            value.write(to: &writer)
            precondition(writer.sink.isFull, "encoded bytes did not match their counted size")
        }
    }

    /// The bytes of `value`.
    init(encoding value: some ByteEncodable) {
        self = []
        append(encoding: value)
    }
}

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
        let tag = try byte()
        switch tag {
        case 0, 1, 2: return
        case 3: _ = try varint()
        case 4: _ = try take(4)
        case 5, 8: _ = try take(8)
        case 6, 7: _ = try take(try count())
        case 9, 10: _ = try take(16)
        case 11: _ = try take(12)
        case 12:
            _ = try uint32()
            _ = try take(try count())
        case 13, 14:
            for _ in 0..<(try count()) { try skipValue(depth: depth + 1) }
        case 15:
            for _ in 0..<(try count()) {
                _ = try take(try count())
                try skipValue(depth: depth + 1)
            }
        case 16, 17:
            _ = try uint32()
            if tag == 17 { _ = try varint() }
            for _ in 0..<(try count()) {
                _ = try uint32()
                try skipValue(depth: depth + 1)
            }
        default:
            throw corrupt("unknown value tag \(tag)")
        }
    }

    mutating func value(depth: Int) throws -> FieldValue {
        guard depth <= RecordCodec.maxNesting else { throw corrupt("values nested more than \(RecordCodec.maxNesting) levels deep") }
        let tag = try byte()
        switch tag {
        case 0: return .null
        case 1: return .bool(false)
        case 2: return .bool(true)
        case 3:
            let raw = try varint()
            return .int(Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))))
        case 4: return .float(Float(bitPattern: try fixed(UInt32.self)))
        case 5: return .double(Double(bitPattern: try fixed(UInt64.self)))
        case 6: return .string(try string())
        case 7: return .data(Data(try take(try count())))
        case 8: return .date(Double(bitPattern: try fixed(UInt64.self)))
        case 9:
            let low = try fixed(UInt64.self)
            let high = try fixed(UInt64.self)
            return .decimal(Decimal128(highBits: high, lowBits: low))
        case 10:
            let raw = try take(16)
            var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: raw) }
            return .uuid(UUID(uuid: uuid))
        case 11: return .objectId(ObjectId(bytes: Array(try take(12))))
        case 12:
            let classID = try uint32()
            return .link(ObjectKey(classID: classID, key: StorageKey(try take(try count()))))
        case 13, 14:
            let count = try self.count()
            var values: [FieldValue] = []
            values.reserveCapacity(count)
            for _ in 0..<count { values.append(try value(depth: depth + 1)) }
            return tag == 13 ? .list(values) : .set(values)
        case 15:
            let count = try self.count()
            var entries: [FieldValue.MapEntry] = []
            entries.reserveCapacity(count)
            for _ in 0..<count {
                let key = try string()
                entries.append(FieldValue.MapEntry(key: key, value: try value(depth: depth + 1)))
            }
            return .map(entries)
        case 16, 17:
            let classID = try uint32()
            let id = tag == 17 ? try varint() : 0
            return .embedded(classID: classID, id: id, fields: try fields(depth: depth + 1))
        default:
            throw corrupt("unknown value tag \(tag)")
        }
    }
}
