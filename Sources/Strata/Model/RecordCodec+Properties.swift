import StrataStorage

// The record writer that reads an unmanaged object's properties through the schema's accessors
// (see RecordCodec.swift for the two writers and the bytes).

extension RecordCodec {
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
}
