// KeyTree: an ordered map from StorageKey to RecordLocation, as a persistent copy-on-write B+tree.
// It is the in-memory index's per-keyspace map: cheap to copy for snapshots, cheap to append to
// in key order, and ordered for range scans.
//
// Structure. Entries live in leaves, sorted by key; branches hold only children and the separator
// keys between them. A branch with n separators has n + 1 children, and child i holds the keys k
// with separator[i - 1] ≤ k < separator[i]. Every leaf is at the same depth. A leaf holds up to
// `leafCapacity` entries (64), a branch up to `branchCapacity` children (64).
//
// Node layout (KeyTree+Node.swift). A node is one allocation: a header (kind, count), then one
// array per field, each with one spare slot so an insertion into a full node lands in place just
// before the node splits. Keys are not stored as StorageKeys but as two sort words each
// (KeyTree+SortKey.swift): 16 bytes that order exactly as the keys' bytes do, in a high-word and a
// low-word array, so a search is a binary search over plain integers, mostly over the 8-byte high
// words, with no retain, release or enum switch. Keys longer than 15 bytes also keep their bytes,
// in an array the node allocates only when it first holds such a key; only two long keys that
// share their first 15 bytes are ever compared byte by byte. Then come the values (12 bytes each)
// or the children. An entry of a leaf takes 28 bytes; a tree built in ascending order, whose
// leaves are full, about 30 bytes per entry in all; one built in random order about 44.
//
// Split policy. A node that overflows splits in the middle, except when the insertion was at its
// end: then the left node keeps all its old entries and the new right node starts with only the
// new one (for a branch, with the new child and its left neighbour, since a branch needs two), so
// ascending inserts leave full nodes behind them. An insertion at the front is the mirror: the
// new entry alone on the left. A removal that leaves a node below a quarter of its capacity
// merges it with a neighbour when both fit in one node, and otherwise evens the two out.
// Separators are not updated when the key they were copied from is removed: they still separate
// correctly.
//
// Path copying. `KeyTree` is a value holding the root node and the entry count; copying it copies
// one reference. A mutation walks down from the root and, at each node on its path, replaces a
// node that is shared with another tree (not uniquely referenced) with a copy of it first, then
// changes the copy in place. Nodes off the path stay shared; nodes that were already unique are
// changed in place. So every copy of a tree keeps seeing exactly the entries it had. A removal
// of an absent key copies nothing.
//
// Threads. A node is only ever changed while it is uniquely referenced, that is, while it belongs
// to one tree value that the mutating code has exclusive access to; a node reachable from two
// trees (or from a tree and an iterator) is never changed again. So any number of threads may
// read a tree, or copies of it, at once, and mutating a tree needs exclusive access to that one
// value, as with any Swift value.

/// An ordered map from keys to record locations: a persistent, copy-on-write B+tree.
///
/// Copying is O(1); lookups, insertions and removals are O(log n); iteration is in ascending
/// byte-wise key order. A tree is a value: mutating one never changes a copy of it.
struct KeyTree: Sendable {
    /// The default most entries of a leaf.
    static let defaultLeafCapacity = 64
    /// The default most children of a branch.
    static let defaultBranchCapacity = 64

    /// The top node; `nil` when the tree is empty.
    var root: Node? {
        get { rootReference.node }
        _modify { yield &rootReference.node }
    }
    /// Holds ``root``.
    private var rootReference = NodeReference()
    /// The number of entries.
    private(set) var count: Int
    /// The most entries of a leaf of this tree.
    let leafCapacity: Int
    /// The most children of a branch of this tree.
    let branchCapacity: Int

    /// An empty tree with the default node capacities.
    init() {
        self.init(leafCapacity: Self.defaultLeafCapacity, branchCapacity: Self.defaultBranchCapacity)
    }

    /// An empty tree with the given node capacities (small ones let tests reach every shape of
    /// split and merge with few keys).
    /// - Precondition: `leafCapacity` ≥ 2 and `branchCapacity` ≥ 3.
    init(leafCapacity: Int, branchCapacity: Int) {
        precondition(leafCapacity >= 2 && branchCapacity >= 3, "KeyTree node capacities too small")
        count = 0
        self.leafCapacity = leafCapacity
        self.branchCapacity = branchCapacity
    }

    /// The tree of `count` entries under `root` (see ``Builder``).
    init(root: Node, count: Int, leafCapacity: Int, branchCapacity: Int) {
        self.init(leafCapacity: leafCapacity, branchCapacity: branchCapacity)
        self.root = root
        self.count = count
    }

    /// Whether the tree has no entries.
    var isEmpty: Bool { count == 0 }

    /// The location stored for `key`, or `nil` if the key is absent.
    subscript(key: StorageKey) -> RecordLocation? {
        guard let root else { return nil }
        return root.value(forKey: SortKey(key))
    }

    /// The greatest key, or `nil` when the tree is empty.
    /// - Complexity: O(log n): one node per level, down the right edge.
    var lastKey: StorageKey? {
        guard var node = root, node.count > 0 else { return nil }
        while !node.isLeaf { node = node.children[node.count] }
        return node.key(at: node.count - 1)
    }

    /// Stores `value` for `key`; returns the value it replaces, or `nil` if the key was absent.
    @discardableResult
    mutating func updateValue(_ value: RecordLocation, forKey key: StorageKey) -> RecordLocation? {
        let key = SortKey(key)
        guard root != nil else {
            root = Node.leaf(sizeLimit: leafCapacity, key: key, value: value)
            count = 1
            return nil
        }
        if !isKnownUniquelyReferenced(&root!) { root = root!.copy() }
        let insertion = Unmanaged.passUnretained(root.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
            $0.insert(value, forKey: key)
        }
        switch insertion {
        case .replaced(let old):
            return old
        case .inserted:
            count += 1
            return nil
        case .split(let separator, let right):
            root = Node.branch(sizeLimit: branchCapacity, left: root!, separator: separator, right: right)
            count += 1
            return nil
        }
    }

    /// Removes `key`; returns the value it had, or `nil` (and leaves the tree untouched) if the key
    /// was absent.
    @discardableResult
    mutating func removeValue(forKey key: StorageKey) -> RecordLocation? {
        guard root != nil else { return nil }
        let key = SortKey(key)
        var knownPresent = false
        if !isKnownUniquelyReferenced(&root!) {
            guard root!.value(forKey: key) != nil else { return nil }
            knownPresent = true
            root = root!.copy()
        }
        let removed = Unmanaged.passUnretained(root.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
            $0.remove(key, knownPresent: knownPresent)
        }
        guard let old = removed else { return nil }
        count -= 1
        if root!.isLeaf {
            if root!.count == 0 { root = nil }
        } else if root!.count == 0 {
            root = root!.children[0]  // a branch with one child: the child becomes the root
        }
        return old
    }
}

extension KeyTree {
    /// A reference to a node that may cross threads.
    ///
    /// `@unchecked Sendable`: a node has mutable storage, but it is only mutated while uniquely
    /// referenced from a tree value that its mutator has exclusive access to (see the top of this
    /// file), so a node visible to more than one thread is never mutated. (The node class itself
    /// cannot be declared Sendable: ManagedBuffer makes that unavailable to its subclasses.)
    struct NodeReference: @unchecked Sendable {
        /// The node, `nil` for none.
        var node: Node?
    }
}
