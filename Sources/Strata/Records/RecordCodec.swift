import Foundation
import StrataStorage

// Encodes and decodes object records: the bytes specified in ObjectFormat.swift (also in
// docs/objects.md).
//
// Two record writers, and why: `encode(_:schema:…)` writes a record from fields (`FieldValue`s in
// property order), which every change that needs the fields as values has — an upsert compares
// them, a class with links or indexes derives backlinks and index entries from them.
// `encode(propertiesOf:…)` (in RecordCodec+Properties.swift, beside the property accessors it
// calls) writes a new object's record straight from its properties, without making fields at
// all: the insert path of a class with no links and no index, where building fields was a third
// of the cost of an add. Both emit every value through the same `ByteWriter`
// functions, and a test (`RecordCodecTests`) checks that they give the same bytes for every type.

enum RecordCodec {
    static let version = ObjectFormat.recordVersion
    /// How deep containers may nest in one property's value (`ObjectFormat.maxNesting`). Writes
    /// refuse a deeper value (`.invalidValue`, see `FieldValue.checkNesting`); reads take it as
    /// corruption. The same number on both sides, so every value a write accepts, a read returns.
    static let maxNesting = ObjectFormat.maxNesting

    /// Appends the record of an object's fields (in property order) to `bytes`.
    static func encode(_ fields: [FieldValue], schema: some RecordLayout, appendingTo bytes: inout [UInt8]) {
        fields.withUnsafeBufferPointer {
            bytes.append(encoding: ObjectRecord(fields: $0, layout: schema.storedFieldLayout))
        }
    }

    /// Appends the record of an object's fields (in property order) to `buffer`.
    static func encode(_ fields: UnsafeBufferPointer<FieldValue>, schema: some RecordLayout, appendingTo buffer: ByteBuffer) {
        let record = ObjectRecord(fields: fields, layout: schema.storedFieldLayout)
        buffer.append { record.write(to: &$0) }
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
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` when the bytes are malformed.
    static func decodeFields(
        _ bytes: UnsafeRawBufferPointer, schema: some RecordLayout, only wanted: [Bool]? = nil
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

    /// Calls `body` with the slot and value of each field of a record whose property has a slot
    /// (`slots[propertyIndex] >= 0`), skipping the others' bytes; allocates nothing of its own.
    /// Fields the record does not hold are not reported (the caller uses their defaults).
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` when the bytes are malformed.
    static func forEachField(
        _ bytes: UnsafeRawBufferPointer, schema: some RecordLayout, slots: [Int], _ body: (Int, FieldValue) -> Void
    ) throws {
        var reader = try recordReader(bytes)
        let count = try reader.count()
        for _ in 0..<count {
            let id = try reader.uint32()
            if let index = schema.propertyIndex(forID: id), slots[index] >= 0 {
                body(slots[index], try reader.value(depth: 0))
            } else {
                try reader.skipValue(depth: 0)
            }
        }
        guard reader.isAtEnd else { throw StrataError(.corruption, "object record has trailing bytes") }
    }

    /// Decodes one field of a record, skipping over the others; nil when the record does not
    /// hold it. Checks only the bytes it walks over.
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` when those bytes are malformed.
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
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` when the bytes are malformed.
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
