import Foundation

/// A property type whose value is written to a record straight from the property's storage,
/// with the same bytes as `ByteWriter.value(try _strataWrite(nil))` and the same errors: the
/// scalars (and their optionals). Adding a new object of a class with no links and no index
/// makes no ``FieldValue`` for such properties (see `Database.addObject`).
///
/// Other property types (collections, links, enums, `AnyValue`) are written through their
/// `FieldValue`, which stays the one representation a record is read into.
protocol ScalarRecordValue: _Persistable, SendableMetatype {
    /// Writes the value as its field in a record.
    /// - Throws: what `_strataWrite` throws (a String or Data over the size limit).
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) throws

    /// Writes the value held at `pointer` (a `Self`), borrowed in place.
    static func writeField(storedAt pointer: UnsafeRawPointer, to writer: inout ByteWriter<GrowingByteSink>) throws
}

extension ScalarRecordValue {
    static func writeField(storedAt pointer: UnsafeRawPointer, to writer: inout ByteWriter<GrowingByteSink>) throws {
        try pointer.assumingMemoryBound(to: Self.self).pointee.writeField(to: &writer)
    }
}

extension Optional: ScalarRecordValue where Wrapped: ScalarRecordValue & _PersistableOptional {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) throws {
        if let self { try self.writeField(to: &writer) } else { writer.null() }
    }
}

extension Bool: ScalarRecordValue {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) { writer.bool(self) }
}

extension ScalarRecordValue where Self: _PersistableInteger {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) { writer.int(Int64(self)) }
}

extension Int: ScalarRecordValue {}
extension Int8: ScalarRecordValue {}
extension Int16: ScalarRecordValue {}
extension Int32: ScalarRecordValue {}
extension Int64: ScalarRecordValue {}

extension Float: ScalarRecordValue {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) { writer.float(self) }
}

extension Double: ScalarRecordValue {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) { writer.double(self) }
}

extension String: ScalarRecordValue {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) throws {
        guard utf8.count <= maxStringOrDataSize else { throw oversizeError("String", bytes: utf8.count) }
        writer.string(self)
    }
}

extension Data: ScalarRecordValue {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) throws {
        guard count <= maxStringOrDataSize else { throw oversizeError("Data", bytes: count) }
        writer.data(self)
    }
}

extension Date: ScalarRecordValue {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) { writer.date(timeIntervalSinceReferenceDate) }
}

extension UUID: ScalarRecordValue {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) { writer.uuid(self) }
}

extension ObjectId: ScalarRecordValue {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) { writer.objectId(self) }
}

extension Decimal128: ScalarRecordValue {
    func writeField(to writer: inout ByteWriter<GrowingByteSink>) { writer.decimal(self) }
}
