import Foundation

// Writes the values of the object format (ObjectFormat.swift) to a `ByteSink`.

/// Writes the values of the record format (ObjectFormat.swift) to a sink.
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
    mutating func tag(_ tag: ObjectFormat.Tag) { byte(tag.rawValue) }
    mutating func null() { tag(.null) }
    mutating func bool(_ flag: Bool) { tag(flag ? .true : .false) }
    mutating func int(_ number: Int64) {
        tag(.int)
        varint(UInt64(bitPattern: (number << 1) ^ (number >> 63)))
    }
    mutating func float(_ number: Float) { tag(.float); fixed(number.bitPattern) }
    mutating func double(_ number: Double) { tag(.double); fixed(number.bitPattern) }
    mutating func string(_ text: String) { tag(.string); utf8(text) }
    mutating func data(_ data: Data) { tag(.data); data.withUnsafeBytes { lengthPrefixed($0) } }
    mutating func date(_ seconds: Double) { tag(.date); fixed(seconds.bitPattern) }
    mutating func decimal(_ decimal: Decimal128) { tag(.decimal128); fixed(decimal.lowBits); fixed(decimal.highBits) }
    mutating func uuid(_ uuid: UUID) {
        tag(.uuid)
        withUnsafeBytes(of: uuid.uuid) { sink.write($0) }
    }
    mutating func objectId(_ id: ObjectId) { tag(.objectId); id.bytes.withUnsafeBytes { sink.write($0) } }

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
            tag(.link)
            varint(UInt64(key.classID))
            key.key.withUnsafeBytes { lengthPrefixed($0) }
        case .list(let values), .set(let values):
            if case .list = value { tag(.list) } else { tag(.set) }
            varint(UInt64(values.count))
            for element in values { self.value(element) }
        case .map(let entries):
            tag(.map)
            varint(UInt64(entries.count))
            for entry in entries {
                utf8(entry.key)
                self.value(entry.value)
            }
        case .embedded(let classID, let id, let fields):
            tag(id == 0 ? .embeddedWithoutIdentity : .embedded)
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
