import HashTreeCollections

// KeyIndex: key → record location, for every live key, grouped by keyspace.
//
// The keyspaces are a persistent hash trie (swift-collections' TreeDictionary; there are few of
// them), each keyspace's keys a persistent B+tree in key order (KeyTree). Both are
// copy-on-write: copying a KeyIndex is O(1) and shares structure, so a snapshot is a copy of a
// value. A mutation of a uniquely held index happens in place; after a snapshot was taken, the
// first mutation of each node copies that node (path copying), leaving the snapshot's view
// untouched. Keys that grow (auto-increment and time-ordered ids) touch only the right edge of
// their tree, so a commit copies a handful of nodes however many keys it adds.
//
// A KeyIndex is a value; sharing one across threads is safe, mutating one needs the usual
// exclusive access.

struct KeyIndex: Sendable {
    typealias Keys = KeyTree

    private(set) var keyspaces: TreeDictionary<Keyspace, Keys> = [:]
    /// How many keys are live, over all keyspaces.
    private(set) var count = 0
    /// The sum of the lengths of the records live keys point at.
    private(set) var liveBytes = 0

    @inline(__always)
    func location(of key: StorageKey, in keyspace: Keyspace) -> RecordLocation? {
        keyspaces[keyspace]?[key]
    }

    /// Points `key` at `location`; returns where it pointed before.
    @discardableResult
    mutating func set(_ location: RecordLocation, for key: StorageKey, in keyspace: Keyspace) -> RecordLocation? {
        let old = keyspaces[keyspace, default: KeyTree()].updateValue(location, forKey: key)
        liveBytes += Int(location.length)
        if let old {
            liveBytes -= Int(old.length)
        } else {
            count += 1
        }
        return old
    }

    /// Forgets `key`; returns where it pointed.
    @discardableResult
    mutating func remove(_ key: StorageKey, in keyspace: Keyspace) -> RecordLocation? {
        guard keyspaces[keyspace]?[key] != nil else { return nil }
        let old = keyspaces[keyspace]?.removeValue(forKey: key)
        if let old {
            count -= 1
            liveBytes -= Int(old.length)
            if keyspaces[keyspace]?.isEmpty == true { keyspaces[keyspace] = nil }
        }
        return old
    }

    /// The keys of one keyspace with their locations, in key order (empty when it has none).
    func entries(in keyspace: Keyspace) -> Keys {
        keyspaces[keyspace] ?? KeyTree()
    }
}
