// The keys whose entries differ between two versions of a KeyTree.
//
// Two versions of a tree (a snapshot's and a later one) share every node no commit in between
// changed (path copying, KeyTree.swift). The two walks go in step, in key order: where both are
// about to enter the same leaf, they skip it whole, since a shared leaf holds the same entries in
// both; elsewhere they compare entry by entry, as a merge of two sorted lists. The walks meet
// again at the first shared leaf after a changed stretch, because a shared leaf starts with the
// same key in both trees. So a commit that changed k keys costs O(k · leaf size) comparisons,
// plus one step per leaf skipped.

extension KeyTree {
    /// Calls `body` with every key whose location differs between `older` and this tree, in
    /// ascending key order: the key, its location in `older` (nil when this tree added it) and
    /// its location here (nil when this tree removed it).
    /// - Complexity: O(n / leaf size + d · leaf size) for n entries and d differing keys.
    func forEachDifference(
        from older: KeyTree, _ body: (StorageKey, RecordLocation?, RecordLocation?) throws -> Void
    ) rethrows {
        var new = makeIterator(), old = older.makeIterator()
        while true {
            if let leaf = new.leafAtStart(), leaf == old.leafAtStart() {
                new.skipLeaf()
                old.skipLeaf()
                continue
            }
            switch (new.peek(), old.peek()) {
            case (nil, nil):
                return
            case (let added?, nil):
                try body(added.key, nil, added.value)
                _ = new.next()
            case (nil, let removed?):
                try body(removed.key, removed.value, nil)
                _ = old.next()
            case (let current?, let previous?):
                if current.key < previous.key {
                    try body(current.key, nil, current.value)
                    _ = new.next()
                } else if previous.key < current.key {
                    try body(previous.key, previous.value, nil)
                    _ = old.next()
                } else {
                    if current.value != previous.value { try body(current.key, previous.value, current.value) }
                    _ = new.next()
                    _ = old.next()
                }
            }
        }
    }
}
