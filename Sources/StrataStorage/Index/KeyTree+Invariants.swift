// Checking a KeyTree's structure, for tests.

extension KeyTree {
    /// A broken structural invariant, found by ``KeyTree/checkInvariants()``.
    struct InvariantViolation: Error, CustomStringConvertible {
        /// What is wrong, and where.
        let description: String
    }

    /// Checks the tree's structure: keys strictly ascending in every node and within the bounds
    /// the separators above them set, sort words matching the keys, node sizes within bounds (at
    /// least 1 entry or 2 children, the root included since an empty tree has no root, and at
    /// most the capacity), every leaf at the same depth, and `count` equal to the number of
    /// entries. Throws the first violation found.
    func checkInvariants() throws {
        guard let root else {
            guard count == 0 else { throw InvariantViolation(description: "empty tree with count \(count)") }
            return
        }
        var leafDepth: Int?
        var entryCount = 0
        try check(root, depth: 0, lowerBound: nil, upperBound: nil, leafDepth: &leafDepth, entryCount: &entryCount)
        guard entryCount == count else {
            throw InvariantViolation(description: "count is \(count) but the leaves hold \(entryCount) entries")
        }
    }

    /// Checks the subtree under `node`, whose keys must be ≥ `lowerBound` and < `upperBound`.
    private func check(
        _ node: Node, depth: Int, lowerBound: StorageKey?, upperBound: StorageKey?,
        leafDepth: inout Int?, entryCount: inout Int
    ) throws {
        let place = "node at depth \(depth) with \(node.count) keys"
        let expectedLimit = node.isLeaf ? leafCapacity : branchCapacity
        guard node.sizeLimit == expectedLimit else {
            throw InvariantViolation(description: "\(place): size limit \(node.sizeLimit), expected \(expectedLimit)")
        }
        let size = node.isLeaf ? node.count : node.childCount
        let smallest = node.isLeaf ? 1 : 2
        guard size >= smallest, size <= node.sizeLimit else {
            throw InvariantViolation(description: "\(place): size \(size) outside \(smallest)...\(node.sizeLimit)")
        }
        for index in 0..<node.count {
            let key = node.key(at: index)
            let stored = node.sortKey(at: index), expected = SortKey(key)
            guard SortKey.isLong(low: stored.low) == (stored.longBytes != nil),
                  stored.high == expected.high, stored.low == expected.low, stored.longBytes == expected.longBytes
            else {
                throw InvariantViolation(description: "\(place): key \(index) has wrong sort words or bytes")
            }
            if index > 0, !(node.key(at: index - 1) < key) {
                throw InvariantViolation(description: "\(place): keys \(index - 1) and \(index) out of order")
            }
            if let lowerBound, key < lowerBound {
                throw InvariantViolation(description: "\(place): key \(index) below its separator \(lowerBound)")
            }
            if let upperBound, !(key < upperBound) {
                throw InvariantViolation(description: "\(place): key \(index) not below its separator \(upperBound)")
            }
        }
        if node.isLeaf {
            entryCount += node.count
            if let leafDepth, leafDepth != depth {
                throw InvariantViolation(description: "leaves at depths \(leafDepth) and \(depth)")
            }
            leafDepth = depth
            return
        }
        for childIndex in 0..<node.childCount {
            try check(
                node.children[childIndex], depth: depth + 1,
                lowerBound: childIndex == 0 ? lowerBound : node.key(at: childIndex - 1),
                upperBound: childIndex == node.count ? upperBound : node.key(at: childIndex),
                leafDepth: &leafDepth, entryCount: &entryCount)
        }
    }
}

extension KeyTree {
    /// How a tree's nodes are arranged, for tests and measurements.
    struct Shape: Equatable {
        /// The number of levels: 0 for an empty tree, 1 for a lone leaf.
        var height = 0
        /// The number of leaves.
        var leafCount = 0
        /// The number of branches.
        var branchCount = 0
    }

    /// The tree's height and node counts (a walk over every node).
    var shape: Shape {
        var shape = Shape()
        var level: [Node] = root.map { [$0] } ?? []
        while let first = level.first {
            shape.height += 1
            if first.isLeaf {
                shape.leafCount += level.count
                break
            }
            shape.branchCount += level.count
            level = level.flatMap { branch in (0..<branch.childCount).map { branch.children[$0] } }
        }
        return shape
    }
}
