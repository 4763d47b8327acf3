import StrataStorage

/// The decoded values of some properties of every object of one class at one version of a
/// database view, in key order: what a query over the whole class reads when its predicate,
/// sort and aggregates compare properties of the class itself or of the objects its to-one
/// links lead to. Built on first use, one pass decoding only the properties asked for; a later
/// query that asks for more gets a new table with the old columns and the new ones; when the
/// view moves to a newer commit, the next query gets the table brought up to date by what the
/// commits between changed (`updated(to:keys:decoding:)`). A query then tests a column of
/// values instead of decoding each record, as Realm's column reads do.
///
/// Thread safety: immutable, so a frozen view's tables may be read by many threads at once;
/// new tables are made under the database's column lock.
final class ClassColumns: @unchecked Sendable {
    /// The database version (`Database.readVersion()`) the values are of.
    let version: Int
    /// The class's keyspace at `version`: what a later version's changes are found against.
    let keys: Snapshot.Entries
    /// Every object of the class, in key order.
    let entries: [Snapshot.Entry]
    /// Each decoded property's values, by property index, in `entries` order.
    let columns: [Int: [FieldValue]]
    /// The row of each key, for following links into this class (made when first asked for).
    let rowsByKey: [StorageKey: Int]?

    init(version: Int, keys: Snapshot.Entries, entries: [Snapshot.Entry], columns: [Int: [FieldValue]] = [:], rowsByKey: [StorageKey: Int]? = nil) {
        self.version = version
        self.keys = keys
        self.entries = entries
        self.columns = columns
        self.rowsByKey = rowsByKey
    }

    /// An empty table of the class whose keyspace at `version` is `keys`.
    convenience init(version: Int, keys: Snapshot.Entries) {
        self.init(version: version, keys: keys, entries: Array(keys))
    }

    /// The values of the property at `index`. REQUIRES: it was decoded (`Database.columns`).
    func column(_ index: Int) -> [FieldValue] { columns[index] ?? [] }

    /// The row of the object whose key is `key`, if it exists. REQUIRES: rows are indexed.
    func row(of key: StorageKey) -> Int? { rowsByKey?[key] }

    /// This table with more columns.
    func adding(_ values: [[FieldValue]], for properties: [Int]) -> ClassColumns {
        var columns = self.columns
        for (position, index) in properties.enumerated() { columns[index] = values[position] }
        return ClassColumns(version: version, keys: keys, entries: entries, columns: columns, rowsByKey: rowsByKey)
    }

    /// This table with the row of each key.
    func indexingRows() -> ClassColumns {
        if rowsByKey != nil { return self }
        var rows = [StorageKey: Int](minimumCapacity: entries.count)
        for (row, entry) in entries.enumerated() { rows[entry.key] = row }
        return ClassColumns(version: version, keys: keys, entries: entries, columns: columns, rowsByKey: rows)
    }
}

extension ClassColumns {
    /// This table brought to the view's version `version`, whose keyspace is `newKeys`: the
    /// rows of the objects the commits in between added, replaced or removed are changed, the
    /// others kept; `decode` reads the decoded properties (in the order of its first argument)
    /// of the given entries. Nil when so many objects changed that a new table costs less.
    /// - Complexity: O(n / 64 + d · 64) to find the d changed objects, plus decoding them; when
    ///   objects were added or removed, O(n) more per column to move rows.
    func updated(
        to version: Int, keys newKeys: Snapshot.Entries,
        decoding decode: (_ properties: [Int], _ entries: [Snapshot.Entry]) -> [[FieldValue]]
    ) -> ClassColumns? {
        let changes = newKeys.changes(since: keys)
        guard changes.count <= max(64, entries.count / 8) else { return nil }
        let properties = columns.keys.sorted()
        let changedEntries = changes.compactMap { change -> Snapshot.Entry? in
            switch change {
            case .added(let entry), .replaced(let entry): return entry
            case .removed: return nil
            }
        }
        let decoded = decode(properties, changedEntries)
        if changedEntries.count == changes.count, let rows = rows(replacedBy: changes) {
            // Only replacements: every object keeps its row.
            var entries = self.entries, columns = self.columns
            for (position, row) in rows.enumerated() { entries[row] = changedEntries[position] }
            for (slot, property) in properties.enumerated() {
                for (position, row) in rows.enumerated() { columns[property]![row] = decoded[slot][position] }
            }
            return ClassColumns(version: version, keys: newKeys, entries: entries, columns: columns, rowsByKey: rowsByKey)
        }
        return merged(changes, decoded: decoded, properties: properties, version: version, keys: newKeys)
    }

    /// The row of each replaced key, in `changes` order; nil when one is not in the table.
    private func rows(replacedBy changes: [Snapshot.Entries.Change]) -> [Int]? {
        var rows: [Int] = []
        rows.reserveCapacity(changes.count)
        for change in changes {
            guard let row = rowsByKey?[change.key] ?? row(searching: change.key) else { return nil }
            rows.append(row)
        }
        return rows
    }

    /// The row of `key`, found by binary search over the entries (which are in key order).
    private func row(searching key: StorageKey) -> Int? {
        var low = 0, high = entries.count
        while low < high {
            let middle = (low + high) / 2
            if entries[middle].key < key { low = middle + 1 } else { high = middle }
        }
        return low < entries.count && entries[low].key == key ? low : nil
    }

    /// The table with `changes` (in key order) merged into its rows: removed keys dropped,
    /// added ones inserted where their keys sort, replaced ones changed in place. `decoded`
    /// holds the decoded properties' values of the added and replaced entries, in order.
    private func merged(
        _ changes: [Snapshot.Entries.Change], decoded: [[FieldValue]], properties: [Int],
        version: Int, keys newKeys: Snapshot.Entries
    ) -> ClassColumns {
        var entries: [Snapshot.Entry] = []
        var values = properties.map { _ in [FieldValue]() }
        entries.reserveCapacity(newKeys.count)
        for slot in values.indices { values[slot].reserveCapacity(newKeys.count) }
        let old = properties.map { columns[$0]! }
        var row = 0, decodedPosition = 0
        func keepRows(below end: Int) {
            entries += self.entries[row..<end]
            for slot in values.indices { values[slot] += old[slot][row..<end] }
            row = end
        }
        for change in changes {
            // The rows before the change's key are unchanged.
            var end = row
            while end < self.entries.count, self.entries[end].key < change.key { end += 1 }
            keepRows(below: end)
            // A removed or replaced key's old row goes.
            if row < self.entries.count, self.entries[row].key == change.key { row += 1 }
            switch change {
            case .removed:
                break
            case .replaced(let entry), .added(let entry):
                entries.append(entry)
                for slot in values.indices { values[slot].append(decoded[slot][decodedPosition]) }
                decodedPosition += 1
            }
        }
        keepRows(below: self.entries.count)
        var newColumns: [Int: [FieldValue]] = [:]
        for (slot, property) in properties.enumerated() { newColumns[property] = values[slot] }
        return ClassColumns(version: version, keys: newKeys, entries: entries, columns: newColumns)
    }
}
