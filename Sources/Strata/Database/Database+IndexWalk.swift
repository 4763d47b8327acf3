import StrataStorage

// Reading secondary indexes: ordered walks over entry keys (IndexKeyEncoding.swift) between two
// byte strings, with the open write's noted changes applied over the stored entries. A damaged
// entry (a key whose value does not parse, a shared entry's list that does not decode) reads as
// absent and is noted (`noteReadFailure`): a write that read it fails at commit.

/// The entry keys from `start` (inclusive) to `end` (exclusive; nil: to the end of the index).
struct IndexKeyRange {
    var start: StorageKey
    var end: StorageKey?

    init(start: [UInt8], end: [UInt8]?) {
        self.start = StorageKey(start)
        self.end = end.map { StorageKey($0) }
    }

    /// Whether `key` lies in the range.
    func contains(_ key: StorageKey) -> Bool {
        !(key < start) && (end.map { key < $0 } ?? true)
    }
}

extension Database {
    /// The keys of the objects of `schema` that have an index entry in one of `ranges` (entries
    /// of one indexed property), in this view, in key order, each once; nil when the entries in
    /// `ranges` are more than `limit` (the walk of the stored ones stops there).
    func indexedObjects(schema: ObjectSchema, in ranges: [IndexKeyRange], atMost limit: Int = .max) -> [ObjectKey]? {
        _ = readVersion()
        var keys: [StorageKey] = []
        // Whether `keys` is in ascending order, each once, as one range's stored entries of
        // whole keys are: then it needs no sort.
        var isAscending = true
        func add(_ key: StorageKey) {
            if isAscending, let last = keys.last, !(last < key) { isAscending = false }
            keys.append(key)
        }
        var budget = limit
        let source = transaction?.base ?? snapshot
        for range in ranges {
            guard storedIndexedObjects(in: range, of: source, budget: &budget, add) else { return nil }
        }
        if let transaction {
            pendingIndexedObjects(in: ranges, of: transaction, add)
            guard keys.count <= limit else { return nil }
        }
        if !isAscending {
            keys.sort()
            keys = keys.indices.compactMap { $0 > 0 && keys[$0 - 1] == keys[$0] ? nil : keys[$0] }
        }
        return keys.map { ObjectKey(classID: schema.classID, key: $0) }
    }

    /// The number of stored entries in `range` of this view's snapshot, counted up to `limit + 1`.
    func indexEntryCount(in range: IndexKeyRange, atMost limit: Int) -> Int {
        _ = readVersion()
        var count = 0
        var walk = snapshot.entries(in: ObjectFormat.indexKeyspace).makeIterator(from: range.start)
        while count <= limit, let entry = walk.next() {
            if let end = range.end, !(entry.key < end) { break }
            count += 1
        }
        return count
    }

    /// Calls `body` with the object keys of the stored entries in `range`, except entries the open
    /// write changes (`pendingIndexedObjects` has those). Returns false, having stopped, when the
    /// range holds more than `budget` entries; takes the entries walked from `budget`.
    private func storedIndexedObjects(
        in range: IndexKeyRange, of source: Snapshot, budget: inout Int, _ body: (StorageKey) -> Void
    ) -> Bool {
        var walk = source.entries(in: ObjectFormat.indexKeyspace).makeIterator(from: range.start)
        while let entry = walk.next() {
            if let end = range.end, !(entry.key < end) { break }
            budget -= 1
            if budget < 0 { return false }
            if let transaction, transaction.indexChanges[entry.key] != nil || transaction.sharedIndexChanges[entry.key] != nil {
                continue
            }
            if IndexKeyEncoding.mayBeShared(entry.key) {
                sharedEntryObjects(entry.key, in: source).forEach(body)
            } else if let object = objectKey(ofEntry: entry.key) {
                body(object)
            }
        }
        return true
    }

    /// Calls `body` with the object keys of the entries in `ranges` that the open write adds, and
    /// of the shared entries it changes (their stored list with the changes applied).
    private func pendingIndexedObjects(in ranges: [IndexKeyRange], of transaction: WriteTransaction, _ body: (StorageKey) -> Void) {
        for (entry, present) in transaction.indexChanges where present && ranges.contains(where: { $0.contains(entry) }) {
            if let object = objectKey(ofEntry: entry) { body(object) }
        }
        for (entry, changes) in transaction.sharedIndexChanges where ranges.contains(where: { $0.contains(entry) }) {
            var objects = Set(sharedEntryObjects(entry, in: transaction.base))
            for (object, present) in changes {
                if present { objects.insert(object) } else { objects.remove(object) }
            }
            objects.forEach(body)
        }
    }

    /// The object key at the end of an entry key that is not shared, or nil (noted) when the
    /// key's value does not parse.
    func objectKey(ofEntry entry: StorageKey) -> StorageKey? {
        guard let start = Self.objectKeyStart(ofEntry: entry) else {
            noteReadFailure(Self.malformedEntry(entry), reading: "a secondary-index entry")
            return nil
        }
        return entry.withUnsafeBytes { StorageKey($0[start...]) }
    }

    /// Where the object-key part of an entry key starts, or nil when its value does not parse.
    static func objectKeyStart(ofEntry entry: StorageKey) -> Int? {
        entry.withUnsafeBytes { bytes -> Int? in
            guard bytes.count >= IndexKeyEncoding.propertyPrefixLength else { return nil }
            let value = UnsafeRawBufferPointer(rebasing: bytes[IndexKeyEncoding.propertyPrefixLength...])
            return IndexKeyEncoding.valueLength(value).map { IndexKeyEncoding.propertyPrefixLength + $0 }
        }
    }

    static func malformedEntry(_ entry: StorageKey) -> StrataError {
        StrataError(.corruption, "secondary-index entry key \(entry) does not hold a well-formed value")
    }

    /// The full keys of the objects a shared entry stands for in `source` (none when it is
    /// absent; none, noted, when it is damaged).
    func sharedEntryObjects(_ entry: StorageKey, in source: Snapshot) -> [StorageKey] {
        do {
            guard let start = Self.objectKeyStart(ofEntry: entry) else { throw Self.malformedEntry(entry) }
            let listed = try source.withValue(for: entry, in: ObjectFormat.indexKeyspace) { value in
                try entry.withUnsafeBytes { key -> [StorageKey] in
                    let tail = UnsafeRawBufferPointer(rebasing: key[start...])
                    return value.isEmpty ? [StorageKey(tail)] : try IndexKeyEncoding.ObjectList.decode(value, tail: tail)
                }
            }
            return listed ?? []
        } catch {
            noteReadFailure(error, reading: "a secondary-index entry")
            return []
        }
    }
}
