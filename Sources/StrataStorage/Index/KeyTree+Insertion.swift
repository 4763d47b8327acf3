// Inserting into a KeyTree: descend to the leaf, copying shared nodes on the way, insert, and
// split the nodes that overflow on the way back up.

extension KeyTree {
    /// What inserting into a subtree did.
    enum Insertion {
        /// The key was present; its value was replaced and this is the old one.
        case replaced(RecordLocation)
        /// A new entry was added and the subtree's top node still fits.
        case inserted
        /// A new entry was added and the subtree's top node split: `right` is its new right
        /// neighbour, and `separator` goes between the two in their parent.
        case split(separator: SortKey, right: Node)
    }
}

extension KeyTree.Node {
    /// Stores `value` for `key` in the subtree under this node, which must be uniquely
    /// referenced. Shared nodes on the way down are replaced by copies first.
    func insert(_ value: RecordLocation, forKey key: KeyTree.SortKey) -> KeyTree.Insertion {
        if isLeaf {
            let index = lowerBound(of: key)
            if index < count && slot(index, holds: key) {
                let old = values[index]
                values[index] = value
                return .replaced(old)
            }
            insertEntry(key, value, at: index)
            guard count > sizeLimit else { return .inserted }
            let right = splitLeaf(at: Self.splitIndex(insertedAt: index, slotCount: count, smallestSide: 1))
            return .split(separator: right.sortKey(at: 0), right: right)
        }
        let index = childIndex(for: key)
        if !isKnownUniquelyReferenced(&children[index]) { children[index] = children[index].copy() }
        // The child is uniquely ours now; calling it through an unmanaged reference saves a
        // retain and release per level.
        let result = Unmanaged.passUnretained(children[index])._withUnsafeGuaranteedRef {
            $0.insert(value, forKey: key)
        }
        guard case .split(let separator, let newChild) = result else { return result }
        insertChild(newChild, separator: separator, at: index + 1)
        guard childCount > sizeLimit else { return .inserted }
        let split = splitBranch(at: Self.splitIndex(insertedAt: index + 1, slotCount: childCount, smallestSide: 2))
        return .split(separator: split.separator, right: split.right)
    }

    /// Where to split an overflowing node of `slotCount` entries (leaf) or children (branch) whose
    /// newest slot is at `insertedAt`; the split index is the number of slots the left node keeps.
    ///
    /// An insertion at the end leaves the left node full and the right one with the smallest
    /// side a node may have (1 entry, or 2 children); one at the front (index 0 of a leaf, 1 of a
    /// branch: the new child is always to the right of the one that split) is the mirror. Any
    /// other insertion splits in the middle.
    @inline(__always)
    static func splitIndex(insertedAt index: Int, slotCount: Int, smallestSide: Int) -> Int {
        if index == slotCount - 1 { return slotCount - smallestSide }
        if index == smallestSide - 1 { return smallestSide }
        return slotCount / 2
    }
}
