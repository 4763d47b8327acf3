// KeyTree.Builder: a tree made from entries that arrive in strictly ascending key order, bottom
// up, with no search: recovery builds a keyspace's tree this way from a hint file's sorted
// entries (Engine/Recovery/Recovery+Hint.swift).
//
// Entries fill a leaf until it is full; the next entry starts a new leaf, which joins the open
// branch of the level above with its first key as separator. A full branch likewise starts a new
// branch beside it one level up (a new root when there is none), so every node left of the right
// edge is full. At the end the right edge is evened out from the top: a node there that holds
// fewer than a quarter of its capacity (a branch may hold a single child) is merged with or
// refilled from its left neighbour, as a removal would (KeyTree+Removal.swift). The tree then
// keeps every invariant of KeyTree+Invariants.swift.
//
// A builder may also go on from a tree whose keys all precede the new ones: its right edge is
// reopened (leaf and branches), and appending goes on there.
//
// A builder owns the nodes it makes until `finish()` hands them to the tree; it is not shared.

extension KeyTree {
    /// Builds a tree from entries appended in strictly ascending key order.
    ///
    /// - Complexity: O(1) amortized per ``append(_:_:)``; O(log n) for ``finish()``.
    struct Builder {
        private let leafCapacity: Int
        private let branchCapacity: Int
        /// The leaf being filled; nil before the first entry.
        private var leaf: Node?
        /// `leaf`, for appending without a retain and release per entry (`leaf` keeps it alive).
        private var unownedLeaf: Unmanaged<Node>?
        /// The number of entries in `leaf`.
        private var leafCount = 0
        /// The open branch of each level above the leaves, lowest first.
        private var branches: [Node] = []
        /// The number of entries appended.
        private(set) var count = 0

        /// A builder of a tree with the given node capacities (the defaults of ``KeyTree/init()``
        /// unless a test needs small nodes).
        init(leafCapacity: Int = KeyTree.defaultLeafCapacity, branchCapacity: Int = KeyTree.defaultBranchCapacity) {
            self.leafCapacity = leafCapacity
            self.branchCapacity = branchCapacity
        }

        /// A builder that goes on from the entries of `tree` (left empty): entries appended must
        /// be greater than all of them. The nodes on the tree's right edge are copied first
        /// where another tree shares them, so that tree keeps its entries.
        /// - Complexity: O(log n).
        init(continuing tree: inout KeyTree) {
            self.init(leafCapacity: tree.leafCapacity, branchCapacity: tree.branchCapacity)
            var taken = KeyTree(leafCapacity: leafCapacity, branchCapacity: branchCapacity)
            swap(&taken, &tree)
            guard taken.root != nil else { return }
            count = taken.count
            if !isKnownUniquelyReferenced(&taken.root!) { taken.root = taken.root!.copy() }
            var node = taken.root!
            var edge: [Node] = []
            while !node.isLeaf {
                let last = node.count
                if !isKnownUniquelyReferenced(&node.children[last]) { node.children[last] = node.children[last].copy() }
                edge.append(node)
                node = node.children[last]
            }
            branches = edge.reversed()
            leaf = node
            unownedLeaf = Unmanaged.passUnretained(node)
            leafCount = node.count
        }

        /// Appends an entry whose key is greater than every key appended before.
        @inline(__always)
        mutating func append(_ key: SortKey, _ value: RecordLocation) {
            count += 1
            if leafCount < leafCapacity, let leaf = unownedLeaf {
                leaf._withUnsafeGuaranteedRef { $0.appendEntry(key, value) }
                leafCount += 1
            } else {
                startLeaf(key, value)
            }
        }

        /// Appends to a new leaf, which joins the tree right of the full one.
        private mutating func startLeaf(_ key: SortKey, _ value: RecordLocation) {
            let next = Node.make(isLeaf: true, sizeLimit: leafCapacity)
            next.appendEntry(key, value)
            if let leaf { attach(next, separator: key, level: 0, besides: leaf) }
            leaf = next
            unownedLeaf = Unmanaged.passUnretained(next)
            leafCount = 1
        }

        /// Puts `node`, whose keys are all ≥ `separator`, right of `left` in the branch of
        /// `level` (0: just above the leaves).
        private mutating func attach(_ node: Node, separator: SortKey, level: Int, besides left: Node) {
            guard level < branches.count else {
                branches.append(Node.branch(sizeLimit: branchCapacity, left: left, separator: separator, right: node))
                return
            }
            let branch = branches[level]
            if branch.childCount < branchCapacity {
                branch.insertChild(node, separator: separator, at: branch.childCount)
                return
            }
            let next = Node.make(isLeaf: false, sizeLimit: branchCapacity)
            next.children.initialize(to: node)  // one child, no separator: evened out by `finish`
            attach(next, separator: separator, level: level + 1, besides: branch)
            branches[level] = next
        }

        /// The tree of the appended entries; the builder is empty afterwards.
        mutating func finish() -> KeyTree {
            defer {
                leaf = nil
                unownedLeaf = nil
                leafCount = 0
                branches = []
                count = 0
            }
            guard let leaf else { return KeyTree(leafCapacity: leafCapacity, branchCapacity: branchCapacity) }
            let root = branches.last ?? leaf
            var node = root
            while !node.isLeaf {
                if node.children[node.count].isUnderfull { node.refillChild(at: node.count) }
                node = node.children[node.count]
            }
            return KeyTree(root: root, count: count, leafCapacity: leafCapacity, branchCapacity: branchCapacity)
        }
    }
}
