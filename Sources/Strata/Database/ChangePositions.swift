import StrataStorage

/// Where each changed object's entry is in a write's change list, by the object's key: the
/// table a write probes for every object it touches.
///
/// An open-addressing hash table with linear probing, at most half full, over one array of
/// slots (a key and its position side by side, so a probe reads one cache line). Keys hash
/// with `StorageKey.hash(seed:)` (StorageKey+SeededHash.swift) — a multiply for the short keys
/// of integers and ObjectIds — under a random seed per table, mixed with the class id;
/// `Dictionary`'s SipHash cost about a quarter of the work of adding an object. A removal
/// shifts the following slots of its run back (no tombstones), so lookups stay short however
/// many keys come and go.
///
/// A value type with copy-on-write storage. Thread safety: none of its own; a write's table is
/// used by the writing thread.
struct ChangePositions {
    private struct Slot {
        var key: ObjectKey
        /// The entry's position in the change list, or -1 for an empty slot.
        var position: Int
    }

    private static let emptySlot = Slot(key: ObjectKey(classID: 0, key: StorageKey(UInt64(0))), position: -1)

    private var slots: [Slot] = []
    /// The number of keys held.
    private(set) var count = 0
    private let seed = UInt64.random(in: 0...UInt64.max)

    /// An empty table.
    init() {}

    /// The position stored for `key`, or nil.
    /// - Complexity: O(1) expected.
    func position(of key: ObjectKey) -> Int? {
        guard !slots.isEmpty else { return nil }
        return slots.withUnsafeBufferPointer { slots in
            let mask = slots.count - 1
            var index = home(of: key, mask: mask)
            while true {
                let slot = slots[index]
                if slot.position < 0 { return nil }
                if slot.key == key { return slot.position }
                index = (index + 1) & mask
            }
        }
    }

    /// The position stored for `key`; when it has none, stores `position` for it and returns
    /// that.
    /// - Complexity: O(1) expected, amortized.
    mutating func position(of key: ObjectKey, insertingIfAbsent position: Int) -> Int {
        precondition(position >= 0, "a change's position is never negative")
        if (count + 1) * 2 > slots.count { grow() }
        let home = home(of: key, mask: slots.count - 1)
        return slots.withUnsafeMutableBufferPointer { slots in
            let mask = slots.count - 1
            var index = home
            while true {
                let stored = slots[index].position
                if stored < 0 {
                    slots[index] = Slot(key: key, position: position)
                    count += 1
                    return position
                }
                if slots[index].key == key { return stored }
                index = (index + 1) & mask
            }
        }
    }

    /// Forgets `key` (nothing when it is absent).
    /// - Complexity: O(1) expected.
    mutating func remove(_ key: ObjectKey) {
        guard !slots.isEmpty else { return }
        let mask = slots.count - 1
        var index = home(of: key, mask: mask)
        while true {
            if slots[index].position < 0 { return }
            if slots[index].key == key { break }
            index = (index + 1) & mask
        }
        // Backward shift: move each later key of the run into the hole when its home slot does
        // not lie (cyclically) after the hole, so every key stays reachable from its home.
        var hole = index
        var next = (hole + 1) & mask
        while slots[next].position >= 0 {
            let nextHome = home(of: slots[next].key, mask: mask)
            if (next &- nextHome) & mask >= (next &- hole) & mask {
                slots[hole] = slots[next]
                hole = next
            }
            next = (next + 1) & mask
        }
        slots[hole] = Self.emptySlot
        count -= 1
    }

    /// Forgets every key, keeping the slots' memory.
    /// - Complexity: O(capacity).
    mutating func removeAll() {
        guard count > 0 else { return }
        for index in slots.indices where slots[index].position >= 0 { slots[index] = Self.emptySlot }
        count = 0
    }

    @inline(__always)
    private func home(of key: ObjectKey, mask: Int) -> Int {
        let hash = key.key.hash(seed: seed ^ (UInt64(key.classID) &* 0xC2B2_AE3D_27D4_EB4F))
        return Int(truncatingIfNeeded: hash) & mask
    }

    /// Doubles the slots (from 16) and places every key again.
    private mutating func grow() {
        let old = slots
        slots = Array(repeating: Self.emptySlot, count: max(16, old.count * 2))
        count = 0
        for slot in old where slot.position >= 0 {
            _ = position(of: slot.key, insertingIfAbsent: slot.position)
        }
    }
}
