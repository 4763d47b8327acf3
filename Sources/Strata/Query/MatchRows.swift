import StrataStorage

/// Not API: the matches of an evaluation, by position: rows made as they were found, or rows of a
/// class's column table (those at `positions`, or all of them), made into rows only when kept;
/// an object handed out for one reads the table's columns.
enum MatchRows {
    case rows([ResultRow])
    case table(ClassColumns, classID: UInt32, positions: [Int]?)

    /// The first `length` matches, in their order.
    func prefix(_ length: Int) -> [ResultRow] {
        if case .rows(let rows) = self, rows.count == length { return rows }
        return (0..<length).map { self[$0] }
    }

    /// The match at position `match`.
    subscript(match: Int) -> ResultRow {
        switch self {
        case .rows(let rows): return rows[match]
        case .table(let table, let classID, let positions):
            let row = positions?[match] ?? match
            return ResultRow(key: ObjectKey(classID: classID, key: table.entries[row].key), source: .row(table, row))
        }
    }
}
