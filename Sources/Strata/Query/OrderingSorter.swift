/// Not API: one sort step of a `QueryOrdering`. It orders the slots of the current order (the
/// positions in it, or every match when there is none yet) by the step's keys, ties by slot,
/// so the sort is stable; then maps slots back to matches.
///
/// Values compare as `FieldOrder` does (null first); a match whose key path goes through a nil
/// link comes last in an ascending key and first in a descending one, as in Realm.
struct OrderingSorter {
    let columns: OrderingColumns
    /// The column of the first key.
    let first: Int
    let keys: [QuerySortKey]

    /// The matches of `order` (every match when nil) sorted, at most `limit` of them.
    /// - Complexity: O(n log n); O(n log limit) when `limit` is smaller than n.
    func sort(_ order: [Int]?, limit: Int?) -> [Int] {
        let count = order?.count ?? columns.count
        let bound = limit.flatMap { $0 < count ? $0 : nil }
        let slots = integerSlots(order, count: count, limit: bound) ?? comparedSlots(order, count: count, limit: bound)
        guard let order else { return slots }
        return slots.map { order[$0] }
    }

    /// The slots in order when there is one key and every value is an integer (the common sort
    /// on an Int property, comparing integers instead of `FieldValue`s); nil otherwise.
    private func integerSlots(_ order: [Int]?, count: Int, limit: Int?) -> [Int]? {
        guard keys.count == 1 else { return nil }
        let column = columns.values[first], ascending = keys[0].ascending
        func key(_ slot: Int) -> IntegerSortKey? {
            guard case .int(let number) = column[order?[slot] ?? slot] else { return nil }
            return IntegerSortKey(value: ascending ? number : ~number, slot: slot)   // ~ reverses exactly
        }
        if let limit {
            var best = SmallestElements<IntegerSortKey>(capacity: limit)
            for slot in 0..<count {
                guard let key = key(slot) else { return nil }
                best.offer(key)
            }
            return best.sorted().map(\.slot)
        }
        var keyed: [IntegerSortKey] = []
        keyed.reserveCapacity(count)
        for slot in 0..<count {
            guard let key = key(slot) else { return nil }
            keyed.append(key)
        }
        keyed.sort()
        return keyed.map(\.slot)
    }

    /// The slots in order, comparing the keys' values.
    private func comparedSlots(_ order: [Int]?, count: Int, limit: Int?) -> [Int] {
        let precedes = { (lhs: Int, rhs: Int) in self.precedes(lhs, rhs, order) }
        guard let limit else { return (0..<count).sorted(by: precedes) }
        var best = SmallestElements<Int>(capacity: limit)
        for slot in 0..<count { best.offer(slot, by: precedes) }
        return best.sorted(by: precedes)
    }

    /// Whether slot `lhs` comes before slot `rhs`: by the first key whose values differ, then by
    /// slot.
    private func precedes(_ lhs: Int, _ rhs: Int, _ order: [Int]?) -> Bool {
        let left = order?[lhs] ?? lhs, right = order?[rhs] ?? rhs
        for (offset, key) in keys.enumerated() {
            let column = first + offset
            switch (columns.isUnlinked(column, left), columns.isUnlinked(column, right)) {
            case (true, true): continue
            case (true, false): return !key.ascending
            case (false, true): return key.ascending
            case (false, false): break
            }
            let comparison = FieldOrder.compare(columns.values[column][left], columns.values[column][right]) ?? 0
            if comparison != 0 { return key.ascending ? comparison < 0 : comparison > 0 }
        }
        return lhs < rhs
    }
}

/// An integer sort value with its slot: ordered by value, then slot (a total order, so the
/// best k are exactly the first k of the stable sort).
struct IntegerSortKey: Comparable {
    var value: Int64
    var slot: Int

    static func < (lhs: Self, rhs: Self) -> Bool {
        lhs.value != rhs.value ? lhs.value < rhs.value : lhs.slot < rhs.slot
    }
}
