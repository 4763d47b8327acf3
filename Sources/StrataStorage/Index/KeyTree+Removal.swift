// Removing from a KeyTree: descend to the leaf, copying shared nodes on the way only once the
// key is known to be present, remove, and on the way back up merge or even out each node that
// fell below its minimum with a neighbour.

extension KeyTree.Node {
    /// The fewest entries (leaf) or children (branch) a node keeps after a removal before it is
    /// merged with or refilled from a neighbour. Splits may leave nodes smaller (see
    /// `splitIndex`); every node other than the root keeps at least 1 entry or 2 children.
    @inline(__always)
    var minimumAfterRemoval: Int { isLeaf ? Swift.max(1, sizeLimit / 4) : Swift.max(2, sizeLimit / 4) }

    /// Whether a removal left this node below ``minimumAfterRemoval``.
    @inline(__always)
    var isUnderfull: Bool { (isLeaf ? count : childCount) < minimumAfterRemoval }

    /// Removes `key` from the subtree under this node, which must be uniquely referenced;
    /// returns its value, or `nil` if it is absent. Shared nodes on the way down are replaced by
    /// copies, but only once the key is known to be there (`knownPresent`, or a lookup in the
    /// shared subtree), so removing an absent key changes nothing.
    func remove(_ key: KeyTree.SortKey, knownPresent: Bool) -> RecordLocation? {
        if isLeaf {
            let index = lowerBound(of: key)
            guard index < count, slot(index, holds: key) else { return nil }
            return removeEntry(at: index)
        }
        let index = childIndex(for: key)
        var knownPresent = knownPresent
        if !isKnownUniquelyReferenced(&children[index]) {
            if !knownPresent {
                guard children[index].value(forKey: key) != nil else { return nil }
                knownPresent = true
            }
            children[index] = children[index].copy()
        }
        let removed = Unmanaged.passUnretained(children[index])._withUnsafeGuaranteedRef {
            $0.remove(key, knownPresent: knownPresent)
        }
        guard let old = removed else { return nil }
        if children[index].isUnderfull { refillChild(at: index) }
        return old
    }

    /// Merges underfull child `index` with a neighbour (its left one when it has one) if both fit
    /// in one node, and otherwise splits their slots evenly between them.
    func refillChild(at index: Int) {
        let leftIndex = index > 0 ? index - 1 : index
        let rightIndex = leftIndex + 1
        let neighbourIndex = index == leftIndex ? rightIndex : leftIndex
        if !isKnownUniquelyReferenced(&children[neighbourIndex]) {
            children[neighbourIndex] = children[neighbourIndex].copy()
        }
        let left = children[leftIndex], right = children[rightIndex]
        if left.isLeaf {
            let total = left.count + right.count
            if total <= left.sizeLimit {
                left.appendEntries(movingFrom: right)
                removeChild(at: rightIndex)
            } else {
                replaceKey(at: leftIndex, with: left.rebalanceEntries(withRight: right, leftCount: total / 2))
            }
        } else {
            let total = left.childCount + right.childCount
            if total <= left.sizeLimit {
                left.appendChildren(movingFrom: right, separator: sortKey(at: leftIndex))
                removeChild(at: rightIndex)
            } else {
                replaceKey(at: leftIndex, with: left.rebalanceChildren(
                    withRight: right, separator: sortKey(at: leftIndex), leftChildCount: total / 2))
            }
        }
    }
}
