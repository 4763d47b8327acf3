// KeyTree.Node: one node's storage, its searches and the edits of its slots.
//
// A node is one allocation (a ManagedBuffer): a header, then `sizeLimit + 1` slots of each of
//
//   high words   UInt64           the keys' sort words (see KeyTree+SortKey.swift), in two
//   low words    UInt64           arrays so a search reads mostly the dense high words
//   payload      RecordLocation   a leaf's values, or
//                Node             a branch's children
//
// The header counts the keys: `count` entries of a leaf, `count` separators and `count + 1`
// children of a branch; only those slots are initialized. A node that holds a key longer than
// 15 bytes also has a separate array with each key's bytes (nil for short keys), initialized in
// the same slots as the keys; the array is made when the first long key arrives (a node keeps it
// when its long keys leave, but a copy or a split drops it if it is not needed). The spare slot
// lets an insertion into a full node land in place just before the node splits.

extension KeyTree {
    /// The fixed part of a node, before its slots.
    struct NodeHeader {
        /// Whether the node is a leaf (entries) rather than a branch (children).
        let isLeaf: Bool
        /// The most entries (leaf) or children (branch) the node holds between operations.
        let sizeLimit: Int
        /// The number of keys: entries of a leaf, separators of a branch.
        var count: Int
        /// The bytes of each key longer than 15 bytes, `nil` for the others; itself `nil` while
        /// the node has not needed it.
        var longKeys: UnsafeMutablePointer<[UInt8]?>?
    }

    /// One node of a ``KeyTree``: a leaf of entries or a branch of children.
    final class Node: ManagedBuffer<NodeHeader, UInt64> {
        /// A node with no keys (and, for a branch, no children: the caller adds them).
        static func make(isLeaf: Bool, sizeLimit: Int) -> Node {
            let slots = sizeLimit + 1
            let payloadWords = isLeaf ? (slots * MemoryLayout<RecordLocation>.stride + 7) / 8 : slots
            let buffer = create(minimumCapacity: 2 * slots + payloadWords) { _ in
                NodeHeader(isLeaf: isLeaf, sizeLimit: sizeLimit, count: 0, longKeys: nil)
            }
            let node = unsafeDowncast(buffer, to: Node.self)
            let payload = UnsafeMutableRawPointer(node.highWords + 2 * slots)
            if isLeaf {
                payload.bindMemory(to: RecordLocation.self, capacity: slots)
            } else {
                payload.bindMemory(to: Node.self, capacity: slots)
            }
            return node
        }

        /// A leaf holding one entry.
        static func leaf(sizeLimit: Int, key: SortKey, value: RecordLocation) -> Node {
            let leaf = make(isLeaf: true, sizeLimit: sizeLimit)
            leaf.insertEntry(key, value, at: 0)
            return leaf
        }

        /// A branch of two children with `separator` between them.
        static func branch(sizeLimit: Int, left: Node, separator: SortKey, right: Node) -> Node {
            let branch = make(isLeaf: false, sizeLimit: sizeLimit)
            branch.children.initialize(to: left)
            branch.insertChild(right, separator: separator, at: 1)
            return branch
        }

        deinit {
            // count is -1 for a branch emptied by appendChildren(movingFrom:separator:): it owns
            // nothing.
            if count >= 0 {
                if !isLeaf { children.deinitialize(count: count + 1) }
                longKeys?.deinitialize(count: count)
            }
            longKeys?.deallocate()
        }

        // MARK: Layout

        /// The header, through a pointer: `header` itself is a class's stored property, which
        /// costs a dynamic exclusivity check at every access.
        @inline(__always)
        private var headerPointer: UnsafeMutablePointer<NodeHeader> { withUnsafeMutablePointerToHeader { $0 } }

        /// Whether this is a leaf (entries) rather than a branch (children).
        @inline(__always)
        var isLeaf: Bool { headerPointer.pointee.isLeaf }

        /// The most entries (leaf) or children (branch) this node holds between operations.
        @inline(__always)
        var sizeLimit: Int { headerPointer.pointee.sizeLimit }

        /// The number of keys: entries of a leaf, separators of a branch.
        @inline(__always)
        var count: Int {
            get { headerPointer.pointee.count }
            set { headerPointer.pointee.count = newValue }
        }

        /// The number of a branch's children.
        @inline(__always)
        var childCount: Int { count + 1 }

        /// The bytes of the keys longer than 15 bytes; `nil` until the node holds one.
        @inline(__always)
        var longKeys: UnsafeMutablePointer<[UInt8]?>? { headerPointer.pointee.longKeys }

        /// The number of slots of each kind.
        @inline(__always)
        var slotCapacity: Int { sizeLimit + 1 }

        /// The keys' high sort words.
        @inline(__always)
        var highWords: UnsafeMutablePointer<UInt64> { withUnsafeMutablePointerToElements { $0 } }

        /// The keys' low sort words.
        @inline(__always)
        var lowWords: UnsafeMutablePointer<UInt64> { highWords + slotCapacity }

        /// A leaf's values.
        @inline(__always)
        var values: UnsafeMutablePointer<RecordLocation> {
            UnsafeMutableRawPointer(highWords + 2 * slotCapacity).assumingMemoryBound(to: RecordLocation.self)
        }

        /// A branch's children.
        @inline(__always)
        var children: UnsafeMutablePointer<Node> {
            UnsafeMutableRawPointer(highWords + 2 * slotCapacity).assumingMemoryBound(to: Node.self)
        }

        /// A new node with the same contents, for a mutation of a node shared with another tree.
        func copy() -> Node {
            let copy = Node.make(isLeaf: isLeaf, sizeLimit: sizeLimit)
            copy.highWords.initialize(from: highWords, count: count)
            copy.lowWords.initialize(from: lowWords, count: count)
            if let longKeys, hasLongKey(in: 0..<count) {
                copy.makeLongKeys().initialize(from: longKeys, count: count)
            }
            if isLeaf {
                copy.values.initialize(from: values, count: count)
            } else {
                copy.children.initialize(from: children, count: count + 1)
            }
            copy.count = count
            return copy
        }

        // MARK: Keys

        /// The key in slot `index`.
        @inline(__always)
        func key(at index: Int) -> StorageKey {
            SortKey.storageKey(high: highWords[index], low: lowWords[index], longBytes: longKeys?[index])
        }

        /// The sort key in slot `index`.
        @inline(__always)
        func sortKey(at index: Int) -> SortKey {
            SortKey(high: highWords[index], low: lowWords[index], longBytes: longKeys?[index])
        }

        /// Whether any of the keys in `range` is longer than 15 bytes.
        func hasLongKey(in range: Range<Int>) -> Bool {
            guard longKeys != nil else { return false }
            return range.contains { SortKey.isLong(low: lowWords[$0]) }
        }

        /// The long-key array, made (with `nil` in the `count` initialized slots) if the node
        /// has none yet. Call it before shifting slots, while `count` says which are initialized.
        @discardableResult
        func makeLongKeys() -> UnsafeMutablePointer<[UInt8]?> {
            if let longKeys { return longKeys }
            let longKeys = UnsafeMutablePointer<[UInt8]?>.allocate(capacity: slotCapacity)
            longKeys.initialize(repeating: nil, count: Swift.max(count, 0))
            headerPointer.pointee.longKeys = longKeys
            return longKeys
        }

        /// Writes `key` into uninitialized slot `index`.
        /// - Precondition: the long-key array exists if `key` is long.
        @inline(__always)
        private func initializeKey(at index: Int, to key: SortKey) {
            highWords[index] = key.high
            lowWords[index] = key.low
            if let longKeys { (longKeys + index).initialize(to: key.longBytes) }
        }

        /// Replaces the key in slot `index`.
        func replaceKey(at index: Int, with key: SortKey) {
            if key.longBytes != nil { makeLongKeys() }
            highWords[index] = key.high
            lowWords[index] = key.low
            if let longKeys { longKeys[index] = key.longBytes }
        }

        /// Moves the key out of slot `index`, leaving it uninitialized.
        @inline(__always)
        private func takeKey(at index: Int) -> SortKey {
            SortKey(high: highWords[index], low: lowWords[index], longBytes: longKeys.map { ($0 + index).move() } ?? nil)
        }

        /// Moves `moving` keys from `source`'s slots at `sourceIndex` into this node's
        /// uninitialized slots at `index`. The ranges may overlap when `source` is this node.
        /// - Precondition: this node has a long-key array if any of the keys is long.
        @inline(__always)
        private func moveKeys(from source: Node, at sourceIndex: Int, count moving: Int, to index: Int) {
            (highWords + index).moveInitialize(from: source.highWords + sourceIndex, count: moving)
            (lowWords + index).moveInitialize(from: source.lowWords + sourceIndex, count: moving)
            switch (longKeys, source.longKeys) {
            case (let longKeys?, let sourceLongKeys?):
                (longKeys + index).moveInitialize(from: sourceLongKeys + sourceIndex, count: moving)
            case (let longKeys?, nil):
                (longKeys + index).initialize(repeating: nil, count: moving)
            case (nil, _?):
                // Short keys only (the precondition): their `nil`s need no deinitializing.
                assert(!(index..<index + moving).contains { SortKey.isLong(low: lowWords[$0]) })
            case (nil, nil):
                break
            }
        }

        // MARK: Searching

        /// The number of keys whose high word is below `high` (`orEqual`: at most `high`).
        ///
        /// Two ways to count. Binary search (`scanning == false`), for writes: its branches
        /// predict perfectly when keys arrive in ascending order, the common case. A count over
        /// every word (`scanning`), for lookups: a random lookup's cost is cache misses, and the
        /// count's loads do not depend on each other, so the processor fetches the node's lines
        /// at once where a binary search waits for each probe in turn (measured: point reads of
        /// 1M objects 8 % faster; ascending inserts 13 % slower, hence the two). (A branch-free
        /// binary search, choosing the half with a conditional move, measured no faster.)
        @inline(__always)
        private func countOfHighWords(below high: UInt64, orEqual: Bool, scanning: Bool) -> Int {
            if scanning {
                var below = 0
                let words = UnsafeBufferPointer(start: highWords, count: count)
                if orEqual {
                    for word in words { below &+= word <= high ? 1 : 0 }
                } else {
                    for word in words { below &+= word < high ? 1 : 0 }
                }
                return below
            }
            guard count > 0 else { return 0 }
            var base = 0
            var length = count
            while length > 1 {
                let half = length &>> 1
                let word = highWords[base &+ half]
                if orEqual ? word <= high : word < high { base &+= half }
                length &-= half
            }
            let word = highWords[base]
            return base &+ ((orEqual ? word <= high : word < high) ? 1 : 0)
        }

        /// Compares the key in slot `index` with `key`, whose high words are equal: negative,
        /// zero or positive as the slot's key sorts before, equal to or after `key`.
        @inline(__always)
        private func compareRest(ofSlot index: Int, with key: SortKey) -> Int {
            let low = lowWords[index]
            if low != key.low { return low < key.low ? -1 : 1 }
            guard let keyBytes = key.longBytes else { return 0 }
            // Equal low words with a long key: both are long and share their first 15 bytes.
            let slotBytes = longKeys.unsafelyUnwrapped[index].unsafelyUnwrapped
            return slotBytes.withUnsafeBytes { slot in
                keyBytes.withUnsafeBytes { StorageKey.compareBytes(slot, $0) }
            }
        }

        /// The number of keys that sort before `key` (`orEqual`: before or equal to it).
        @inline(__always)
        private func rank(of key: SortKey, orEqual: Bool, scanning: Bool = false) -> Int {
            let start = countOfHighWords(below: key.high, orEqual: false, scanning: scanning)
            guard start < count, highWords[start] == key.high else { return start }
            // Slots start..<end share key's high word: order them by the rest.
            var end = start &+ 1
            if end < count && highWords[end] == key.high {
                end = countOfHighWords(below: key.high, orEqual: true, scanning: scanning)
            }
            var low = start, high = end
            while low < high {
                let middle = (low &+ high) &>> 1
                let order = compareRest(ofSlot: middle, with: key)
                if order < 0 || (orEqual && order == 0) { low = middle &+ 1 } else { high = middle }
            }
            return low
        }

        /// In a leaf: the index of the first key ≥ `key`, or `count` if there is none
        /// (`scanning`: see `countOfHighWords`).
        @inline(__always)
        func lowerBound(of key: SortKey, scanning: Bool = false) -> Int {
            rank(of: key, orEqual: false, scanning: scanning)
        }

        /// In a leaf: whether slot `index` (< `count`) holds `key`.
        @inline(__always)
        func slot(_ index: Int, holds key: SortKey) -> Bool {
            highWords[index] == key.high && compareRest(ofSlot: index, with: key) == 0
        }

        /// In a branch: the index of the child whose key range holds `key` (the number of
        /// separators ≤ `key`).
        @inline(__always)
        func childIndex(for key: SortKey, scanning: Bool = false) -> Int {
            rank(of: key, orEqual: true, scanning: scanning)
        }

        /// The value stored for `key` in the subtree under this node, or `nil`.
        func value(forKey key: SortKey) -> RecordLocation? {
            // Unmanaged references: the walk needs no retain and release per node, since this
            // node keeps the whole subtree alive.
            var node = Unmanaged.passUnretained(self)
            while let child = node._withUnsafeGuaranteedRef({ $0.child(for: key) }) {
                node = child
            }
            return node._withUnsafeGuaranteedRef { leaf in
                let index = leaf.lowerBound(of: key, scanning: true)
                guard index < leaf.count, leaf.slot(index, holds: key) else { return nil }
                return leaf.values[index]
            }
        }

        /// In a branch: the child whose key range holds `key`; `nil` in a leaf.
        @inline(__always)
        private func child(for key: SortKey) -> Unmanaged<Node>? {
            guard !isLeaf else { return nil }
            return Unmanaged.passUnretained(children[childIndex(for: key, scanning: true)])
        }

        // MARK: Editing a leaf

        /// Inserts an entry at `index` of a leaf, shifting the later ones right.
        /// - Precondition: `count` ≤ `sizeLimit` (the spare slot is free).
        @inline(__always)
        func insertEntry(_ key: SortKey, _ value: RecordLocation, at index: Int) {
            if key.longBytes != nil { makeLongKeys() }
            let later = count - index
            moveKeys(from: self, at: index, count: later, to: index + 1)
            initializeKey(at: index, to: key)
            (values + index + 1).moveInitialize(from: values + index, count: later)
            (values + index).initialize(to: value)
            count += 1
        }

        /// Adds an entry after the last one of a leaf (a builder's: no shifting, no search).
        /// - Precondition: `count` < `slotCapacity`, and `key` is greater than every key here.
        @inline(__always)
        func appendEntry(_ key: SortKey, _ value: RecordLocation) {
            let index = count
            if key.longBytes != nil { makeLongKeys() }
            initializeKey(at: index, to: key)
            (values + index).initialize(to: value)
            count = index + 1
        }

        /// Removes the entry at `index` of a leaf, shifting the later ones left; returns its value.
        @inline(__always)
        func removeEntry(at index: Int) -> RecordLocation {
            let value = values[index]
            let later = count - index - 1
            _ = takeKey(at: index)
            moveKeys(from: self, at: index + 1, count: later, to: index)
            (values + index).moveInitialize(from: values + index + 1, count: later)
            count -= 1
            return value
        }

        /// Moves a leaf's entries from `index` on into a new leaf, which it returns.
        func splitLeaf(at index: Int) -> Node {
            let right = Node.make(isLeaf: true, sizeLimit: sizeLimit)
            if hasLongKey(in: index..<count) { right.makeLongKeys() }
            let moving = count - index
            right.moveKeys(from: self, at: index, count: moving, to: 0)
            right.values.moveInitialize(from: values + index, count: moving)
            right.count = moving
            count = index
            return right
        }

        /// Moves all of leaf `right`'s entries to the end of this leaf, leaving `right` empty.
        func appendEntries(movingFrom right: Node) {
            if right.hasLongKey(in: 0..<right.count) { makeLongKeys() }
            moveKeys(from: right, at: 0, count: right.count, to: count)
            (values + count).moveInitialize(from: right.values, count: right.count)
            count += right.count
            right.count = 0
        }

        /// Moves entries between this leaf and its right neighbour `right` until this one holds
        /// `leftCount` of their entries; returns the new separator (`right`'s first key).
        func rebalanceEntries(withRight right: Node, leftCount: Int) -> SortKey {
            if leftCount < count {
                // This leaf's last entries go to the front of `right`.
                let moving = count - leftCount
                if hasLongKey(in: leftCount..<count) { right.makeLongKeys() }
                right.moveKeys(from: right, at: 0, count: right.count, to: moving)
                (right.values + moving).moveInitialize(from: right.values, count: right.count)
                right.moveKeys(from: self, at: leftCount, count: moving, to: 0)
                right.values.moveInitialize(from: values + leftCount, count: moving)
                right.count += moving
            } else {
                // `right`'s first entries go to the end of this leaf.
                let moving = leftCount - count
                if right.hasLongKey(in: 0..<moving) { makeLongKeys() }
                moveKeys(from: right, at: 0, count: moving, to: count)
                (values + count).moveInitialize(from: right.values, count: moving)
                right.moveKeys(from: right, at: moving, count: right.count - moving, to: 0)
                right.values.moveInitialize(from: right.values + moving, count: right.count - moving)
                right.count -= moving
            }
            count = leftCount
            return right.sortKey(at: 0)
        }

        // MARK: Editing a branch

        /// Inserts `child` at `index` ≥ 1 of a branch, with `separator` just before it (between it
        /// and child `index - 1`).
        /// - Precondition: `childCount` ≤ `sizeLimit` (the spare slot is free).
        func insertChild(_ child: Node, separator: SortKey, at index: Int) {
            if separator.longBytes != nil { makeLongKeys() }
            let separatorIndex = index - 1
            moveKeys(from: self, at: separatorIndex, count: count - separatorIndex, to: separatorIndex + 1)
            initializeKey(at: separatorIndex, to: separator)
            (children + index + 1).moveInitialize(from: children + index, count: count + 1 - index)
            (children + index).initialize(to: child)
            count += 1
        }

        /// Removes child `index` ≥ 1 of a branch and the separator before it.
        func removeChild(at index: Int) {
            let separatorIndex = index - 1
            _ = takeKey(at: separatorIndex)
            moveKeys(from: self, at: separatorIndex + 1, count: count - separatorIndex - 1, to: separatorIndex)
            (children + index).deinitialize(count: 1)
            (children + index).moveInitialize(from: children + index + 1, count: count - index)
            count -= 1
        }

        /// Moves a branch's children from `index` ≥ 1 on into a new branch, which it returns with
        /// the separator that stood before child `index` (it moves up to the parent).
        func splitBranch(at index: Int) -> (separator: SortKey, right: Node) {
            let right = Node.make(isLeaf: false, sizeLimit: sizeLimit)
            if hasLongKey(in: index..<count) { right.makeLongKeys() }
            let movingChildren = count + 1 - index
            right.children.moveInitialize(from: children + index, count: movingChildren)
            right.moveKeys(from: self, at: index, count: movingChildren - 1, to: 0)
            right.count = movingChildren - 1
            let separator = takeKey(at: index - 1)
            count = index - 1
            return (separator, right)
        }

        /// Moves all of branch `right`'s children to the end of this branch, with `separator` (the
        /// one between the two in their parent) between the old and the new; leaves `right` with
        /// no children.
        func appendChildren(movingFrom right: Node, separator: SortKey) {
            if separator.longBytes != nil || right.hasLongKey(in: 0..<right.count) { makeLongKeys() }
            initializeKey(at: count, to: separator)
            moveKeys(from: right, at: 0, count: right.count, to: count + 1)
            (children + count + 1).moveInitialize(from: right.children, count: right.count + 1)
            count += right.count + 1
            right.count = -1  // no keys and no children: its deinit frees only its storage
        }

        /// Moves children between this branch and its right neighbour `right` until this one has
        /// `leftChildCount` of their children, rotating separators through `separator` (the one
        /// between the two in their parent); returns the new separator between them.
        func rebalanceChildren(withRight right: Node, separator: SortKey, leftChildCount: Int) -> SortKey {
            if leftChildCount < childCount {
                // This branch's last children go to the front of `right`, and its keys after
                // them with `separator`.
                let moving = childCount - leftChildCount
                if separator.longBytes != nil || hasLongKey(in: leftChildCount..<count) { right.makeLongKeys() }
                right.moveKeys(from: right, at: 0, count: right.count, to: moving)
                (right.children + moving).moveInitialize(from: right.children, count: right.count + 1)
                right.children.moveInitialize(from: children + leftChildCount, count: moving)
                right.initializeKey(at: moving - 1, to: separator)
                right.moveKeys(from: self, at: leftChildCount, count: moving - 1, to: 0)
                right.count += moving
                let newSeparator = takeKey(at: leftChildCount - 1)
                count = leftChildCount - 1
                return newSeparator
            } else {
                // `right`'s first children go to the end of this branch, and `separator` with
                // its keys before them.
                let moving = leftChildCount - childCount
                if separator.longBytes != nil || right.hasLongKey(in: 0..<moving - 1) { makeLongKeys() }
                initializeKey(at: count, to: separator)
                moveKeys(from: right, at: 0, count: moving - 1, to: count + 1)
                (children + count + 1).moveInitialize(from: right.children, count: moving)
                let newSeparator = right.takeKey(at: moving - 1)
                right.moveKeys(from: right, at: moving, count: right.count - moving, to: 0)
                right.children.moveInitialize(from: right.children + moving, count: right.count + 1 - moving)
                right.count -= moving
                count = leftChildCount - 1
                return newSeparator
            }
        }
    }
}
