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
// Changes go through an `Editor`, which takes one keyspace's tree out of the trie while it
// changes it: a run of changes in one keyspace looks the keyspace up (and hashes it) once, and
// the tree, held by nothing else, is changed in place.
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
        edit { $0.set(location, for: key, in: keyspace) }
    }

    /// Forgets `key`; returns where it pointed.
    @discardableResult
    mutating func remove(_ key: StorageKey, in keyspace: Keyspace) -> RecordLocation? {
        guard keyspaces[keyspace]?[key] != nil else { return nil }
        return edit { $0.remove(key, in: keyspace) }
    }

    /// Replaces the keys of `keyspace` with `keys` (dropping the keyspace when `keys` is empty);
    /// `liveBytesChange` is the sum of the lengths `keys` points at less that of the keys they
    /// replace.
    /// - Complexity: O(log k) in the number of keyspaces.
    mutating func replaceKeys(in keyspace: Keyspace, with keys: KeyTree, liveBytesChange: Int) {
        count += keys.count - (keyspaces[keyspace]?.count ?? 0)
        liveBytes += liveBytesChange
        if keys.isEmpty {
            keyspaces[keyspace] = nil
        } else {
            keyspaces[keyspace] = keys
        }
    }

    /// The keys of one keyspace with their locations, in key order (empty when it has none).
    func entries(in keyspace: Keyspace) -> Keys {
        keyspaces[keyspace] ?? KeyTree()
    }

    /// Runs `body` with an editor of this index; its changes are in the index when `edit`
    /// returns (and not before: the index is empty while `body` runs).
    mutating func edit<R>(_ body: (inout Editor) throws -> R) rethrows -> R {
        var editor = Editor(index: KeyIndex())
        swap(&self, &editor.index)
        defer {
            editor.closeKeyspace()
            swap(&self, &editor.index)
        }
        return try body(&editor)
    }

    /// Changes an index (see ``KeyIndex/edit(_:)``), one open keyspace at a time.
    struct Editor {
        fileprivate var index: KeyIndex
        /// The keyspace being changed, its tree out of `index.keyspaces` meanwhile.
        private var openKeyspace: Keyspace?
        private var openKeys = KeyTree()

        fileprivate init(index: KeyIndex) { self.index = index }

        /// Points `key` at `location`; returns where it pointed before.
        @discardableResult
        mutating func set(_ location: RecordLocation, for key: StorageKey, in keyspace: Keyspace) -> RecordLocation? {
            open(keyspace)
            let old = openKeys.updateValue(location, forKey: key)
            index.liveBytes += Int(location.length)
            if let old {
                index.liveBytes -= Int(old.length)
            } else {
                index.count += 1
            }
            return old
        }

        /// Forgets `key`; returns where it pointed.
        @discardableResult
        mutating func remove(_ key: StorageKey, in keyspace: Keyspace) -> RecordLocation? {
            open(keyspace)
            guard let old = openKeys.removeValue(forKey: key) else { return nil }
            index.count -= 1
            index.liveBytes -= Int(old.length)
            return old
        }

        @inline(__always)
        private mutating func open(_ keyspace: Keyspace) {
            guard openKeyspace != keyspace else { return }
            closeKeyspace()
            openKeyspace = keyspace
            openKeys = index.keyspaces.removeValue(forKey: keyspace) ?? KeyTree()
        }

        /// Puts the open keyspace's tree back (dropping the keyspace when it has no keys left).
        fileprivate mutating func closeKeyspace() {
            guard let keyspace = openKeyspace else { return }
            openKeyspace = nil
            var keys = KeyTree()
            swap(&keys, &openKeys)
            if !keys.isEmpty { index.keyspaces[keyspace] = keys }
        }
    }
}
