import StrataStorage

/// Not API: the matches of an evaluation, by position: rows made as they were found, or entries of a
/// class's columns (those at `positions`, or all of them), made into rows only when kept.
enum MatchRows {
    case rows([ResultRow])
    case entries([Snapshot.Entry], classID: UInt32, positions: [Int]?)

    /// The first `length` matches, in their order.
    func prefix(_ length: Int) -> [ResultRow] {
        if case .rows(let rows) = self, rows.count == length { return rows }
        return (0..<length).map { self[$0] }
    }

    /// The match at position `match`.
    subscript(match: Int) -> ResultRow {
        switch self {
        case .rows(let rows): return rows[match]
        case .entries(let entries, let classID, let positions):
            let entry = entries[positions?[match] ?? match]
            return ResultRow(key: ObjectKey(classID: classID, key: entry.key), source: .record(entry))
        }
    }
}
