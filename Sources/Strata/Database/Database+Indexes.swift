import StrataStorage

// Persistent secondary indexes for `@Persisted(indexed: true)` properties: one entry per
// (value, object), whose key orders entries by value then object key (IndexKeyEncoding.swift)
// and whose value is empty. A write notes which entries its changes add and remove; its commit
// puts and deletes exactly those, in the same commit as the objects. Reads: Database+IndexWalk.
//
// (Primary keys need no index: an object's storage key is its primary key.)

extension Database {
    /// Notes the index entries one object's change adds and removes, going from `before` to
    /// `after` fields (nil: the object does not exist on that side).
    func recordIndexChanges(_ key: ObjectKey, schema: ObjectSchema, before: [FieldValue]?, after: [FieldValue]?) {
        guard let transaction else { return }
        for property in schema.indexedProperties {
            let old = before?[property.index]
            let new = after?[property.index]
            guard old != new else { continue }
            if let old { transaction.noteIndexEntry(Self.indexEntryKey(schema, property, old, key.key), object: key.key, present: false) }
            if let new { transaction.noteIndexEntry(Self.indexEntryKey(schema, property, new, key.key), object: key.key, present: true) }
        }
    }

    /// The key of the entry saying that object `object` holds `value` in `property`.
    static func indexEntryKey(_ schema: ObjectSchema, _ property: PropertySchema, _ value: FieldValue, _ object: StorageKey) -> StorageKey {
        let prefix = IndexKeyEncoding.valuePrefix(classID: schema.classID, propertyID: property.propertyID, value: property.indexedValue(value))
        return IndexKeyEncoding.entryKey(valuePrefix: prefix, object: object)
    }

    /// The index entries the open write changes, for its commit batch: a put of an empty value
    /// or a delete per entry, and for a shared entry (see IndexKeyEncoding) its new object list.
    func indexRecords(into batch: inout WriteBatch) {
        guard let transaction else { return }
        let base = transaction.base
        for (entry, present) in transaction.indexChanges {
            if present {
                batch.put([], forKey: entry, in: ObjectFormat.indexKeyspace)
            } else if base.contains(entry, in: ObjectFormat.indexKeyspace) {
                batch.delete(entry, in: ObjectFormat.indexKeyspace)
            }
        }
        for (entry, changes) in transaction.sharedIndexChanges {
            var objects = Set(sharedEntryObjects(entry, in: base))
            for (object, present) in changes {
                if present { objects.insert(object) } else { objects.remove(object) }
            }
            Self.putSharedEntry(entry, objects: objects, into: &batch)
        }
    }

    /// A shared entry listing `objects`: deleted when there is none, else its value.
    static func putSharedEntry(_ entry: StorageKey, objects: Set<StorageKey>, into batch: inout WriteBatch) {
        if objects.isEmpty {
            batch.delete(entry, in: ObjectFormat.indexKeyspace)
        } else {
            batch.put(sharedEntryValue(entry, objects: objects), forKey: entry, in: ObjectFormat.indexKeyspace)
        }
    }

    /// The value of a shared entry listing `objects` (at least one): empty when the one object
    /// is the key's tail, else the list.
    static func sharedEntryValue(_ entry: StorageKey, objects: Set<StorageKey>) -> [UInt8] {
        let tail = StorageKey(entry.bytes[sharedEntryTailStart(entry)...])
        return objects == [tail] ? [] : IndexKeyEncoding.ObjectList.encode(objects.sorted())
    }

    /// Where the object-key part of an entry key starts (the key was built by this process, so
    /// its value is well formed).
    private static func sharedEntryTailStart(_ entry: StorageKey) -> Int {
        entry.withUnsafeBytes { bytes in
            let value = UnsafeRawBufferPointer(rebasing: bytes[IndexKeyEncoding.propertyPrefixLength...])
            return IndexKeyEncoding.propertyPrefixLength + (IndexKeyEncoding.valueLength(value) ?? value.count)
        }
    }
}

extension WriteTransaction {
    /// Notes that the entry `entry` (for object `object`) is added (`present`) or removed.
    func noteIndexEntry(_ entry: StorageKey, object: StorageKey, present: Bool) {
        if IndexKeyEncoding.mayBeShared(entry) {
            sharedIndexChanges[entry, default: [:]][object] = present
        } else {
            indexChanges[entry] = present
        }
    }
}
