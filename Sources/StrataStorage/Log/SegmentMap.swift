// SegmentMap: the open segments by number, for the read path.
//
// Every read maps a record location's segment number to its file. Numbers are normally close
// together (they only grow, one per roll or compacted segment), so besides the dictionary the
// map keeps a table indexed by `number - first` and finds a file with one bounds check instead
// of a hash. The table is kept only while it is small next to the number of segments; numbers
// far apart (a hand-edited or hostile MANIFEST) fall back to the dictionary alone, so no input
// can make the map allocate more than a few words per segment.
//
// A value type: copying one for a snapshot copies two references.

/// Segment files by number. A value; `Sendable`.
struct SegmentMap: Sendable {
    private var files: [UInt32: SegmentFile] = [:]
    private var first: UInt32 = 0
    private var table: [SegmentFile?] = []

    init() {}

    /// How many segments the map holds.
    var count: Int { files.count }

    var isEmpty: Bool { files.isEmpty }

    /// The segment numbered `number`; setting nil removes it.
    subscript(number: UInt32) -> SegmentFile? {
        @inline(__always) get {
            if !table.isEmpty {
                guard number >= first else { return nil }
                let position = Int(number - first)
                return position < table.count ? table[position] : nil
            }
            return files[number]
        }
        set {
            files[number] = newValue
            rebuildTable()
        }
    }

    /// Removes and returns the segment numbered `number`.
    mutating func removeValue(forKey number: UInt32) -> SegmentFile? {
        let old = files.removeValue(forKey: number)
        rebuildTable()
        return old
    }

    /// The segment numbers, ascending.
    var keys: [UInt32] { files.keys.sorted() }

    /// The segments, by ascending number.
    var values: [SegmentFile] { files.values.sorted { $0.number < $1.number } }

    /// Segments change only on a roll or a compaction: rebuilding is cheap next to either.
    private mutating func rebuildTable() {
        guard let low = files.keys.min(), let high = files.keys.max(),
              Int(high - low) < 1024 + 4 * files.count
        else {
            table = []
            return
        }
        var rebuilt = [SegmentFile?](repeating: nil, count: Int(high - low) + 1)
        for (number, file) in files { rebuilt[Int(number - low)] = file }
        first = low
        table = rebuilt
    }
}
