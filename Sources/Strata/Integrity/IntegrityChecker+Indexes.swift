import StrataStorage

// Passes 2 and 5 of the integrity check: the secondary-index entries (keyspace 2, format in
// IndexKeyEncoding.swift). The catalog records which properties are indexed (and in which
// format); each indexed property must have exactly one entry per object, under the object's
// value, and nothing else.

extension IntegrityChecker {
    /// One (entry, object) pair of an index: the entry key and the full key of an object it
    /// stands for (the key's tail, or one of a shared entry's list).
    struct IndexPair: Hashable {
        var entry: StorageKey
        var object: StorageKey
    }

    /// Pass 2: reads every index entry; notes what each stands for. In a database whose index
    /// format is not the current one (a writable open rebuilds it), the entries are not read.
    mutating func loadIndexRecords() {
        guard indexFormatIsCurrent else {
            if snapshot.count(in: ObjectFormat.indexKeyspace) > 0 {
                report.notes.append("the secondary indexes are of an older format (the catalog records no \"indexFormat\" \(ObjectFormat.indexFormat)): not checked; a writable open rebuilds them")
            }
            return
        }
        for item in snapshot.entries(in: ObjectFormat.indexKeyspace) {
            do {
                for object in try indexedObjects(of: item) { storedIndex.insert(IndexPair(entry: item.key, object: object)) }
            } catch {
                report.add(.undecodableIndexEntry, "index entry \(item.key): \(error)")
            }
        }
    }

    /// The objects an entry stands for.
    /// - Throws: ``/StrataStorage/StrataError`` `.corruption` naming what is malformed.
    private func indexedObjects(of item: Snapshot.Entry) throws -> [StorageKey] {
        guard let start = Database.objectKeyStart(ofEntry: item.key) else { throw Database.malformedEntry(item.key) }
        let (classID, propertyID) = Self.indexedPair(item.key)
        guard indexedProperties.contains(IndexedProperty(classID: classID, propertyID: propertyID)) else {
            throw StrataError(.corruption, "it names \(describe(property: propertyID, of: classID)), which the catalog does not record as an indexed property of a top-level class")
        }
        return try snapshot.withValue(of: item) { value in
            try item.key.withUnsafeBytes { key -> [StorageKey] in
                let tail = UnsafeRawBufferPointer(rebasing: key[start...])
                if value.isEmpty { return [StorageKey(tail)] }
                guard IndexKeyEncoding.mayBeShared(item.key) else {
                    throw StrataError(.corruption, "an entry whose key is shorter than the longest key has a value (\(value.count) bytes)")
                }
                return try IndexKeyEncoding.ObjectList.decode(value, tail: tail)
            }
        }
    }

    /// Pass 5: compares the entries with the indexed values the objects hold.
    mutating func compareIndex() {
        report.indexEntriesChecked += storedIndex.count
        for pair in storedIndex.subtracting(expectedIndex).sorted(by: { ($0.entry, $0.object) < ($1.entry, $1.object) }) {
            let (classID, propertyID) = Self.indexedPair(pair.entry)
            let object = ObjectKey(classID: classID, key: pair.object)
            if objectsWithoutIndexedField.contains(ObjectProperty(object: object, propertyID: propertyID)) { continue }
            let why = snapshot.contains(pair.object, in: Keyspace(classID)) ? "which holds another value" : "which does not exist"
            report.add(.extraIndexEntry, "the index of \(describeEntry(pair.entry)) lists \(describe(object)), \(why)")
        }
        for pair in expectedIndex.subtracting(storedIndex).sorted(by: { ($0.entry, $0.object) < ($1.entry, $1.object) }) {
            let (classID, _) = Self.indexedPair(pair.entry)
            report.add(.missingIndexEntry, "\(describe(ObjectKey(classID: classID, key: pair.object))) holds \(describeEntry(pair.entry)), but the index does not list it")
        }
    }

    /// Notes the entry an object holding `value` in an indexed property implies.
    mutating func expectIndexEntry(of object: ObjectKey, propertyID: UInt32, value: FieldValue) {
        let isMixed = mixedIndexedProperties.contains(IndexedProperty(classID: object.classID, propertyID: propertyID))
        let indexed = isMixed ? IndexKeyEncoding.mixedValue(value) : value
        let prefix = IndexKeyEncoding.valuePrefix(classID: object.classID, propertyID: propertyID, value: indexed)
        expectedIndex.insert(IndexPair(entry: IndexKeyEncoding.entryKey(valuePrefix: prefix, object: object.key), object: object.key))
    }

    /// The class and property ids at the front of an entry key (zeros when it is too short).
    private static func indexedPair(_ key: StorageKey) -> (UInt32, UInt32) {
        let bytes = key.bytes
        guard bytes.count >= IndexKeyEncoding.propertyPrefixLength else { return (0, 0) }
        return (bigEndianUInt32(bytes[...]), bigEndianUInt32(bytes.dropFirst(4)))
    }

    /// `Class.property = value` for an entry key, for messages.
    private func describeEntry(_ key: StorageKey) -> String {
        let (classID, propertyID) = Self.indexedPair(key)
        let decoded = key.withUnsafeBytes { bytes -> (value: FieldValue, isCut: Bool)? in
            guard bytes.count > IndexKeyEncoding.propertyPrefixLength else { return nil }
            return IndexKeyEncoding.decodeValue(UnsafeRawBufferPointer(rebasing: bytes[IndexKeyEncoding.propertyPrefixLength...]))
        }
        let value = decoded.map { "\($0.value)" + ($0.isCut ? "… (cut)" : "") } ?? "(a value that does not decode)"
        return "\(describe(property: propertyID, of: classID)) = \(value)"
    }
}
