import StrataStorage

// Persistent secondary indexes for `@Persisted(indexed: true)` properties: for each indexed
// property and value, an index record (its bytes: ObjectFormat.swift) listing the keys of the
// objects holding that value. Updated in the same commit as the objects; equality queries read
// it instead of scanning.
//
// (Primary keys need no index: an object's storage key is its primary key.)

extension Database {
    static func indexKey(classID: UInt32, propertyID: UInt32, value: FieldValue) -> StorageKey {
        let bytes = [UInt8](encoding: IndexKey(classID: classID, propertyID: propertyID, value: value))
        return StorageKey(bytes.prefix(ObjectFormat.maxStorageKeyLength))
    }

    /// The key of a secondary-index entry: class id u32 big-endian │ property id u32
    /// big-endian │ value (as in a record).
    private struct IndexKey: ByteEncodable {
        let classID: UInt32
        let propertyID: UInt32
        let value: FieldValue

        func write<Sink: ByteSink>(to writer: inout ByteWriter<Sink>) {
            writer.bigEndian(classID)
            writer.bigEndian(propertyID)
            writer.value(value)
        }
    }

    /// The keys of the objects an index entry lists in `snapshot`. A damaged entry reads as
    /// empty and is noted (`noteReadFailure`): a write that reads it fails.
    func storedIndexEntries(_ indexKey: StorageKey, in snapshot: Snapshot) -> Set<StorageKey> {
        do {
            return try Self.decodeIndexEntries(indexKey, in: snapshot)
        } catch {
            noteReadFailure(error, reading: "a secondary-index record")
            return []
        }
    }

    /// The keys of the objects an index entry lists in `snapshot`.
    /// - Throws: `.corruption` when the record is damaged.
    static func decodeIndexEntries(_ indexKey: StorageKey, in snapshot: Snapshot) throws -> Set<StorageKey> {
        let decoded = try snapshot.withValue(for: indexKey, in: ObjectFormat.indexKeyspace) { bytes -> Set<StorageKey> in
            var reader = ByteReader(bytes: bytes)
            var keys = Set<StorageKey>()
            for _ in 0..<(try reader.count()) { keys.insert(StorageKey(try reader.take(try reader.count()))) }
            guard reader.isAtEnd else { throw StrataError(.corruption, "a secondary-index record has trailing bytes") }
            return keys
        }
        return decoded ?? []
    }

    static func encodeIndexEntries(_ keys: Set<StorageKey>) -> [UInt8] {
        [UInt8](encoding: IndexEntryList(keys: keys.sorted()))
    }

    /// The value of a secondary-index entry: count varint │ (key length varint │ key)*.
    private struct IndexEntryList: ByteEncodable {
        let keys: [StorageKey]

        func write<Sink: ByteSink>(to writer: inout ByteWriter<Sink>) {
            writer.varint(UInt64(keys.count))
            for key in keys { key.withUnsafeBytes { writer.lengthPrefixed($0) } }
        }
    }

    /// Records index changes for one object going from `before` to `after` fields.
    func recordIndexChanges(_ key: ObjectKey, schema: ObjectSchema, before: [FieldValue]?, after: [FieldValue]?) {
        guard let transaction else { return }
        for property in schema.indexedProperties {
            let old = before?[property.index]
            let new = after?[property.index]
            guard old != new else { continue }
            if let old {
                let indexKey = Self.indexKey(classID: schema.classID, propertyID: property.propertyID, value: old)
                transaction.indexChanges[indexKey, default: [:]][key.key] = false
            }
            if let new {
                let indexKey = Self.indexKey(classID: schema.classID, propertyID: property.propertyID, value: new)
                transaction.indexChanges[indexKey, default: [:]][key.key] = true
            }
        }
    }

    /// The keys of the objects whose indexed `property` equals `value`, in this view.
    func indexLookup(schema: ObjectSchema, property: PropertySchema, value: FieldValue) -> [ObjectKey] {
        _ = readVersion()
        let indexKey = Self.indexKey(classID: schema.classID, propertyID: property.propertyID, value: value)
        var keys = storedIndexEntries(indexKey, in: transaction?.base ?? snapshot)
        if let changes = transaction?.indexChanges[indexKey] {
            for (key, present) in changes {
                if present { keys.insert(key) } else { keys.remove(key) }
            }
        }
        return keys.sorted().map { ObjectKey(classID: schema.classID, key: $0) }
    }

    /// The index records the open write changes, for its commit batch.
    func indexRecords(into batch: inout WriteBatch) {
        guard let transaction else { return }
        for (indexKey, changes) in transaction.indexChanges {
            var keys = storedIndexEntries(indexKey, in: transaction.base)
            for (key, present) in changes {
                if present { keys.insert(key) } else { keys.remove(key) }
            }
            if keys.isEmpty {
                batch.delete(indexKey, in: ObjectFormat.indexKeyspace)
            } else {
                batch.put(Self.encodeIndexEntries(keys), forKey: indexKey, in: ObjectFormat.indexKeyspace)
            }
        }
    }
}
