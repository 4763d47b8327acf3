// SegmentMap: the open segments by number, for the read path.
//
// Every read maps a record location's segment number to its file. Numbers are small and close
// together (they only grow, one per roll or compacted segment), so a table indexed by
// `number - first` finds the file with one bounds check instead of a hash. A value type: copying
// one for a snapshot copies an array reference.

/// Segment files by number. A value; `Sendable`.
struct SegmentMap: Sendable {
    private var first: UInt32 = 0
    private var table: [SegmentFile?] = []
    /// How many segments the map holds.
    private(set) var count = 0

    init() {}

    /// The segment numbered `number`; setting nil removes it.
    subscript(number: UInt32) -> SegmentFile? {
        @inline(__always) get {
            guard number >= first else { return nil }
            let position = Int(number - first)
            return position < table.count ? table[position] : nil
        }
        set {
            if table.isEmpty {
                guard newValue != nil else { return }
                first = number
            }
            if number < first {
                guard newValue != nil else { return }
                table.insert(contentsOf: repeatElement(nil, count: Int(first - number)), at: 0)
                first = number
            }
            let position = Int(number - first)
            if position >= table.count {
                guard newValue != nil else { return }
                table.append(contentsOf: repeatElement(nil, count: position - table.count + 1))
            }
            switch (table[position], newValue) {
            case (nil, .some): count += 1
            case (.some, nil): count -= 1
            default: break
            }
            table[position] = newValue
            // Drop leading holes left by removed (compacted) segments.
            if let firstUsed = table.firstIndex(where: { $0 != nil }), firstUsed > 0 {
                table.removeFirst(firstUsed)
                first += UInt32(firstUsed)
            } else if count == 0 {
                table = []
                first = 0
            }
        }
    }

    /// Removes and returns the segment numbered `number`.
    mutating func removeValue(forKey number: UInt32) -> SegmentFile? {
        let old = self[number]
        self[number] = nil
        return old
    }

    var isEmpty: Bool { count == 0 }

    /// The segment numbers, ascending.
    var keys: [UInt32] { values.map(\.number) }

    /// The segments, by ascending number.
    var values: [SegmentFile] { table.compactMap { $0 } }
}
