extension Snapshot {
    /// A key of a snapshot and a reference to its stored value (see ``Snapshot/withValue(of:_:)``).
    ///
    /// An entry is only meaningful with the snapshot it came from. A value; `Sendable`.
    public struct Entry: Sendable {
        /// The key.
        public let key: StorageKey
        /// The keyspace the key is in.
        let keyspace: Keyspace
        /// Where the key's record is.
        let location: RecordLocation
    }

    /// The entries of one keyspace of a snapshot (see ``Snapshot/entries(in:)``), in ascending
    /// key order.
    ///
    /// A value that shares the snapshot's index; `Sendable`.
    public struct Entries: Sequence, Sendable {
        let keys: KeyIndex.Keys
        /// The keyspace the entries are in.
        let keyspace: Keyspace

        /// No entries.
        public static let empty = Entries(keys: KeyTree(), keyspace: Keyspace(0))

        /// The number of entries.
        /// - Complexity: O(1).
        public var count: Int { keys.count }

        /// The greatest key, or nil when there are no entries.
        /// - Complexity: O(log n) in the entry count.
        public var lastKey: StorageKey? { keys.lastKey }

        /// The entry of `key`, or nil when the keyspace does not hold it.
        /// - Complexity: O(log n) in the entry count.
        public func entry(for key: StorageKey) -> Entry? {
            keys[key].map { Entry(key: key, keyspace: keyspace, location: $0) }
        }

        /// How one key's entry differs between two versions of a keyspace (see
        /// ``changes(since:)``).
        public enum Change: Sendable {
            /// The key is new: the older version has no entry for it.
            case added(Entry)
            /// The key's record is another one: a new value, or the same value moved by a
            /// compaction.
            case replaced(Entry)
            /// The key has no entry any more.
            case removed(StorageKey)

            /// The key that changed.
            public var key: StorageKey {
                switch self {
                case .added(let entry), .replaced(let entry): return entry.key
                case .removed(let key): return key
                }
            }
        }

        /// The keys whose entries differ between `older` (the same keyspace at an earlier
        /// snapshot, or any other entries) and these, in ascending key order. Parts of the index
        /// the two versions share are skipped without being read, so after a commit this costs
        /// about what the commit changed.
        /// - Complexity: O(n / 64 + d · 64) for n entries and d changed keys.
        public func changes(since older: Entries) -> [Change] {
            var changes: [Change] = []
            keys.forEachDifference(from: older.keys) { key, before, after in
                guard let after else { return changes.append(.removed(key)) }
                let entry = Entry(key: key, keyspace: keyspace, location: after)
                changes.append(before == nil ? .added(entry) : .replaced(entry))
            }
            return changes
        }

        /// Walks the entries.
        public func makeIterator() -> Iterator { Iterator(base: keys.makeIterator(), keyspace: keyspace) }

        /// Walks the entries whose keys are ≥ `lowerBound`, in ascending key order: the start of
        /// a range or prefix walk, which the caller ends when a key passes its upper bound.
        ///
        /// ```swift
        /// var walk = snapshot.entries(in: keyspace).makeIterator(from: StorageKey("b"))
        /// while let entry = walk.next(), entry.key < StorageKey("d") { … }   // keys in [b, d)
        /// ```
        ///
        /// The iterator sees the entries as they were when it was made, whatever happens to the
        /// store afterwards; it is a value, used by one thread at a time (make one per thread).
        /// - Complexity: O(log n) in the entry count to make; O(1) amortized per step.
        public func makeIterator(from lowerBound: StorageKey) -> Iterator {
            Iterator(base: keys.makeIterator(from: lowerBound), keyspace: keyspace)
        }

        /// Walks the entries of a keyspace.
        public struct Iterator: IteratorProtocol {
            var base: KeyIndex.Keys.Iterator
            let keyspace: Keyspace

            /// The next entry, or nil after the last.
            public mutating func next() -> Entry? {
                guard let (key, location) = base.next() else { return nil }
                return Entry(key: key, keyspace: keyspace, location: location)
            }
        }
    }
}
