import StrataStorage

// Passes 2 and 5 of the integrity check: the secondary-index records (keyspace 2, format in
// Database+Indexes.swift). Their keys say which (class, property) pairs are indexed — the
// catalog has no flag for it, so an indexed property none of whose values has a record is not
// seen. Each record must list exactly the objects whose field holds its value.

extension IntegrityChecker {
    /// Pass 2: reads every index record; notes the indexed pairs and what each record lists.
    mutating func loadIndexRecords() {
        for item in snapshot.entries(in: ObjectFormat.indexKeyspace) {
            let bytes = item.key.bytes
            guard bytes.count > 8 else {
                report.add(.undecodableIndexEntry, "index record key \(item.key) is shorter than a class id, a property id and a value")
                continue
            }
            let (classID, propertyID) = Self.indexedPair(item.key)
            guard let entry = classes[classID], !entry.isEmbedded,
                  entry.properties.contains(where: { $0.id == propertyID })
            else {
                report.add(.undecodableIndexEntry, "index record \(item.key) names \(describe(property: propertyID, of: classID)), which is not a property of a top-level class of the catalog")
                continue
            }
            do {
                storedIndex[item.key] = try snapshot.withValue(of: item) { try Self.decodeIndexKeys($0) }
                indexedProperties.insert(IndexedProperty(classID: classID, propertyID: propertyID))
            } catch {
                report.add(.undecodableIndexEntry, "the index record of \(describe(property: propertyID, of: classID)) = \(Self.indexedValue(item.key)): \(error)")
            }
        }
    }

    /// Pass 5: compares what the index records list with what the objects hold.
    mutating func compareIndex() {
        for (indexKey, stored) in storedIndex.sorted(by: { $0.key < $1.key }) {
            report.indexEntriesChecked += stored.count
            let expected = expectedIndex.removeValue(forKey: indexKey) ?? []
            let (classID, propertyID) = Self.indexedPair(indexKey)
            let name = "\(describe(property: propertyID, of: classID)) = \(Self.indexedValue(indexKey))"
            for key in stored.subtracting(expected) {
                let object = ObjectKey(classID: classID, key: key)
                if objectsWithoutIndexedField.contains(ObjectProperty(object: object, propertyID: propertyID)) { continue }
                let why = snapshot.contains(key, in: Keyspace(classID)) ? "which holds another value" : "which does not exist"
                report.add(.extraIndexEntry, "the index of \(name) lists \(describe(object)), \(why)")
            }
            for key in expected.subtracting(stored) {
                report.add(.missingIndexEntry, "\(describe(ObjectKey(classID: classID, key: key))) holds \(name), but the index does not list it")
            }
        }
        for (indexKey, keys) in expectedIndex.sorted(by: { $0.key < $1.key }) {
            let (classID, propertyID) = Self.indexedPair(indexKey)
            for key in keys {
                report.add(.missingIndexEntry, "\(describe(ObjectKey(classID: classID, key: key))) holds \(describe(property: propertyID, of: classID)) = \(Self.indexedValue(indexKey)), but there is no index record for that value")
            }
        }
    }

    /// The object keys an index record lists.
    /// - Throws: ``StrataError`` `.corruption` when the bytes are malformed.
    static func decodeIndexKeys(_ bytes: UnsafeRawBufferPointer) throws -> Set<StorageKey> {
        var reader = ByteReader(bytes: bytes)
        var keys = Set<StorageKey>()
        for _ in 0..<(try reader.count()) { keys.insert(StorageKey(try reader.take(try reader.count()))) }
        guard reader.isAtEnd else { throw StrataError(.corruption, "index record has trailing bytes") }
        return keys
    }

    /// The class and property ids at the front of an index key (checked to be there).
    private static func indexedPair(_ key: StorageKey) -> (UInt32, UInt32) {
        let bytes = key.bytes
        return (bigEndianUInt32(bytes[...]), bigEndianUInt32(bytes.dropFirst(4)))
    }

    /// The value an index key ends with, for messages.
    private static func indexedValue(_ key: StorageKey) -> String {
        let bytes = Array(key.bytes.dropFirst(8))
        let value = bytes.withUnsafeBytes { raw -> FieldValue? in
            var reader = ByteReader(bytes: raw)
            return try? reader.value(depth: 0)
        }
        return value.map { "\($0)" } ?? "(\(bytes.count) bytes that do not decode)"
    }
}
