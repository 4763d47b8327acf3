// Walking a KeyTree in ascending key order, from the start or from a lower bound.
//
// An iterator holds the path from the root to its current leaf: each branch on it with the index
// of the child it is in. When the leaf is used up it climbs to the nearest branch with a child
// further right and descends that child's leftmost path. It holds the root, which keeps every
// node below alive and unchanged, so it stays valid, and sees the tree as it was, whatever
// happens to the tree afterwards. (Leaves have no links to their neighbours: with path copying,
// a link would make a change to one leaf copy all the leaves before it.)

extension KeyTree: Sequence {
    /// An entry of the tree.
    typealias Element = (key: StorageKey, value: RecordLocation)

    /// The entries in ascending key order.
    func makeIterator() -> Iterator {
        Iterator(root: root, lowerBound: nil)
    }

    /// The entries whose keys are ≥ `lowerBound`, in ascending key order.
    func makeIterator(from lowerBound: StorageKey) -> Iterator {
        Iterator(root: root, lowerBound: lowerBound)
    }

    /// The number of entries.
    var underestimatedCount: Int { count }

    /// The keys in ascending order.
    var keys: Keys { Keys(tree: self) }

    /// An iterator over a tree's entries in ascending key order.
    struct Iterator: IteratorProtocol {
        /// The root of the tree being walked. Holding it keeps every node below it alive and
        /// unchanged (a tree that shares a node copies it before changing it), so the rest of
        /// the walk can use unmanaged references, with no retain and release per step.
        private let root: Node?
        /// The branches from the root down to `leaf`'s parent, each with the index of the child
        /// the walk is in.
        private var path: ContiguousArray<(branch: Unmanaged<Node>, childIndex: Int)> = []
        /// The leaf being walked; `nil` before the first and after the last.
        private var leaf: Unmanaged<Node>?
        /// The index in `leaf` of the next entry.
        private var index = 0
        /// The number of entries in `leaf`; 0 when there is none.
        private var leafCount = 0

        /// An iterator at the first entry with a key ≥ `lowerBound`, or at the first entry.
        init(root: Node?, lowerBound: StorageKey?) {
            self.root = root
            guard let root else { return }
            let lowerBound = lowerBound.map { SortKey($0) }
            var node = Unmanaged.passUnretained(root)
            while let (child, childIndex) = node._withUnsafeGuaranteedRef({ node -> (Unmanaged<Node>, Int)? in
                guard !node.isLeaf else { return nil }
                let childIndex = lowerBound.map { node.childIndex(for: $0) } ?? 0
                return (Unmanaged.passUnretained(node.children[childIndex]), childIndex)
            }) {
                path.append((node, childIndex))
                node = child
            }
            leaf = node
            node._withUnsafeGuaranteedRef { leaf in
                leafCount = leaf.count
                index = lowerBound.map { leaf.lowerBound(of: $0) } ?? 0
            }
        }

        /// The next entry, or `nil` at the end.
        mutating func next() -> Element? {
            nextSorted().map { ($0.key.storageKey, $0.value) }
        }

        /// The next entry with its key as the tree keeps it, or `nil` at the end.
        @inline(__always)
        mutating func nextSorted() -> (key: SortKey, value: RecordLocation)? {
            if index >= leafCount {
                guard moveToNextLeaf() else { return nil }
            }
            let entryIndex = index
            index &+= 1
            return leaf.unsafelyUnwrapped._withUnsafeGuaranteedRef { leaf in
                (leaf.sortKey(at: entryIndex), leaf.values[entryIndex])
            }
        }

        /// The next entry without moving past it, or `nil` at the end.
        mutating func peek() -> Element? {
            if index >= leafCount {
                guard moveToNextLeaf() else { return nil }
            }
            let entryIndex = index
            return leaf.unsafelyUnwrapped._withUnsafeGuaranteedRef { leaf in
                (leaf.key(at: entryIndex), leaf.values[entryIndex])
            }
        }

        /// The leaf the walk is about to enter when its next entry is a leaf's first one (the
        /// node's identity, to tell a leaf two trees share), or nil.
        mutating func leafAtStart() -> ObjectIdentifier? {
            if index >= leafCount {
                guard moveToNextLeaf() else { return nil }
            }
            guard index == 0, let leaf else { return nil }
            return ObjectIdentifier(leaf.takeUnretainedValue())
        }

        /// Moves past the rest of the current leaf's entries.
        mutating func skipLeaf() {
            index = leafCount
        }

        /// Moves to the first entry of the leaf after `leaf`; returns false, and stays at the
        /// end, if there is none.
        private mutating func moveToNextLeaf() -> Bool {
            while let (branch, childIndex) = path.popLast() {
                let nextIndex = childIndex + 1
                guard nextIndex < branch._withUnsafeGuaranteedRef({ $0.childCount }) else { continue }
                path.append((branch, nextIndex))
                var node = branch._withUnsafeGuaranteedRef { Unmanaged.passUnretained($0.children[nextIndex]) }
                while let child = node._withUnsafeGuaranteedRef({ node -> Unmanaged<Node>? in
                    node.isLeaf ? nil : Unmanaged.passUnretained(node.children[0])
                }) {
                    path.append((node, 0))
                    node = child
                }
                leaf = node
                index = 0
                leafCount = node._withUnsafeGuaranteedRef { $0.count }
                return true
            }
            leaf = nil
            index = 0
            leafCount = 0
            return false
        }
    }

    /// A tree's keys in ascending order.
    struct Keys: Sequence {
        /// The tree whose keys these are.
        let tree: KeyTree

        /// The number of keys.
        var underestimatedCount: Int { tree.count }

        /// The keys in ascending order.
        func makeIterator() -> Iterator {
            Iterator(entries: tree.makeIterator())
        }

        /// An iterator over a tree's keys in ascending order.
        struct Iterator: IteratorProtocol {
            /// The iterator over the entries whose keys these are.
            var entries: KeyTree.Iterator

            /// The next key, or `nil` at the end.
            mutating func next() -> StorageKey? {
                entries.next()?.key
            }
        }
    }
}
