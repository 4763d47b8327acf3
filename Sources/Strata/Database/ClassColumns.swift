import StrataStorage

/// The decoded values of some properties of every object of one class at one version of a
/// database view, in key order: what a query over the whole class reads when its predicate,
/// sort and aggregates compare properties of the class itself or of the objects its to-one
/// links lead to. Built on first use, one pass decoding only the properties asked for; a later
/// query that asks for more adds the new columns; when the view moves to a newer commit, the
/// next query brings the table up to date with what the commits in between changed
/// (`update(to:keys:decoding:)`). A query then tests a column of values instead of decoding each
/// record, as Realm's column reads do.
///
/// Thread safety: changed only under the database's column lock and only while nothing but the
/// cache refers to it (`Database.columns` copies a table someone still holds before changing
/// it), so a table handed out never changes: a frozen view's tables may be read by many threads
/// at once. So no access to a table's properties overlaps a change, and they skip Swift's
/// dynamic exclusivity checks (`@exclusivity(unchecked)`), which objects handed out by a walk
/// would otherwise pay on every property read.
final class ClassColumns: @unchecked Sendable {
    /// The database version (`Database.readVersion()`) the values are of.
    @exclusivity(unchecked) private(set) var version: Int
    /// The class's keyspace at `version`: what a later version's changes are found against.
    @exclusivity(unchecked) private(set) var keys: Snapshot.Entries
    /// Every object of the class, in key order.
    @exclusivity(unchecked) private(set) var entries: [Snapshot.Entry]
    /// By property index: the property's values in `entries` order, or nil when not decoded.
    @exclusivity(unchecked) private(set) var columns: [[FieldValue]?]
    /// The row of each key, for following links into this class (made when first asked for).
    @exclusivity(unchecked) private(set) var rowsByKey: [StorageKey: Int]?
    /// Stands for the rows' order: a new one whenever objects are added or removed (and so
    /// rows move), which tells link rows into this table they must be found again.
    @exclusivity(unchecked) private(set) var layout = RowLayout()
    /// By link property: the row each object's link leads to in the linked class's table.
    @exclusivity(unchecked) private(set) var linkRows: [Int: LinkRows] = [:]

    /// The identity of one order of a table's rows (compared with `===`).
    final class RowLayout {}

    /// The row each object's link (one property) leads to in the linked class's table whose row
    /// order is `target`; -1 for a nil link or one to no object.
    struct LinkRows {
        let target: RowLayout
        var rows: [Int]
        /// Rows whose objects changed since `rows` was made: their links are found again.
        var stale: [Int] = []
    }

    private init(version: Int, keys: Snapshot.Entries, entries: [Snapshot.Entry], columns: [[FieldValue]?], rowsByKey: [StorageKey: Int]?) {
        self.version = version
        self.keys = keys
        self.entries = entries
        self.columns = columns
        self.rowsByKey = rowsByKey
    }

    /// A table with no columns of the class of `propertyCount` properties whose keyspace at
    /// `version` is `keys`.
    convenience init(version: Int, keys: Snapshot.Entries, propertyCount: Int) {
        self.init(version: version, keys: keys, entries: Array(keys), columns: Array(repeating: nil, count: propertyCount), rowsByKey: nil)
    }

    /// The indexes of the properties whose columns are decoded, in ascending order.
    var decodedProperties: [Int] { columns.indices.filter { columns[$0] != nil } }

    /// Whether the column of the property at `index` is decoded.
    func hasColumn(_ index: Int) -> Bool { columns[index] != nil }

    /// A table with the same contents, to change while this one is still read elsewhere (its
    /// arrays are shared until one of the two changes them).
    func copy() -> ClassColumns {
        let copy = ClassColumns(version: version, keys: keys, entries: entries, columns: columns, rowsByKey: rowsByKey)
        copy.layout = layout
        copy.linkRows = linkRows
        return copy
    }

    /// The values of the property at `index`. REQUIRES: it was decoded (`Database.columns`).
    func column(_ index: Int) -> [FieldValue] { columns[index] ?? [] }

    /// The value of the property at `index` in `row`, or nil when its column is not decoded.
    @inline(__always)
    func value(of index: Int, at row: Int) -> FieldValue? { columns[index]?[row] }

    /// The row of the object whose key is `key`, if it exists. REQUIRES: rows are indexed.
    func row(of key: StorageKey) -> Int? { rowsByKey?[key] }

    /// Adds columns: `values[i]` are the values of the property `properties[i]`.
    func add(_ values: [[FieldValue]], for properties: [Int]) {
        for (position, index) in properties.enumerated() { columns[index] = values[position] }
    }

    /// Indexes the row of each key, if that is not done.
    func indexRows() {
        if rowsByKey != nil { return }
        var rows = [StorageKey: Int](minimumCapacity: entries.count)
        for (row, entry) in entries.enumerated() { rows[entry.key] = row }
        rowsByKey = rows
    }

    /// Finds the row each object's link `property` leads to in `target` (the table of the
    /// linked class, whose id is `targetClass`, its rows indexed), unless that is known: only the rows of objects changed since
    /// are looked at again while `target`'s rows stay where they were.
    /// REQUIRES: the column of `property` is decoded.
    func resolveLinks(_ property: Int, into target: ClassColumns, of targetClass: UInt32) {
        let links = column(property)
        func row(_ position: Int) -> Int {
            guard case .link(let key) = links[position], key.classID == targetClass,
                  let row = target.row(of: key.key) else { return -1 }
            return row
        }
        if var known = linkRows[property], known.target === target.layout {
            guard !known.stale.isEmpty else { return }
            linkRows[property] = nil   // so that `known.rows` is changed in place
            for position in known.stale { known.rows[position] = row(position) }
            known.stale = []
            linkRows[property] = known
        } else {
            linkRows[property] = LinkRows(target: target.layout, rows: links.indices.map(row))
        }
    }
}

extension ClassColumns {
    /// Brings the table to the view's version `version`, whose keyspace is `newKeys`: the rows of
    /// the objects the commits in between added, replaced or removed change, the others stay;
    /// `decode` reads the decoded properties (in the order of its first argument) of the given
    /// entries. Returns false, changing nothing, when so many objects changed that a new table
    /// costs less.
    /// - Complexity: O(n / 64 + d · 64) to find the d changed objects, plus decoding them; when
    ///   objects were added or removed, O(n) more per column to move rows.
    func update(
        to version: Int, keys newKeys: Snapshot.Entries,
        decoding decode: (_ properties: [Int], _ entries: [Snapshot.Entry]) -> [[FieldValue]]
    ) -> Bool {
        let changes = newKeys.changes(since: keys)
        guard changes.count <= max(64, entries.count / 8) else { return false }
        let properties = decodedProperties
        let changedEntries = changes.compactMap { change -> Snapshot.Entry? in
            switch change {
            case .added(let entry), .replaced(let entry): return entry
            case .removed: return nil
            }
        }
        let decoded = decode(properties, changedEntries)
        if changedEntries.count == changes.count, let rows = rows(replacedBy: changes) {
            // Only replacements: every object keeps its row.
            for (position, row) in rows.enumerated() { entries[row] = changedEntries[position] }
            for (slot, property) in properties.enumerated() {
                for (position, row) in rows.enumerated() { columns[property]![row] = decoded[slot][position] }
            }
            for property in linkRows.keys { linkRows[property]!.stale += rows }
        } else {
            merge(changes, decoded: decoded, properties: properties, count: newKeys.count)
        }
        self.version = version
        keys = newKeys
        return true
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

    /// Merges `changes` (in key order) into the rows: removed keys dropped, added ones inserted
    /// where their keys sort, replaced ones changed in place; `count` rows in the end. `decoded`
    /// holds the decoded properties' values of the added and replaced entries, in order.
    private func merge(_ changes: [Snapshot.Entries.Change], decoded: [[FieldValue]], properties: [Int], count: Int) {
        var newEntries: [Snapshot.Entry] = []
        var values = properties.map { _ in [FieldValue]() }
        newEntries.reserveCapacity(count)
        for slot in values.indices { values[slot].reserveCapacity(count) }
        let old = properties.map { columns[$0]! }
        var row = 0, decodedPosition = 0
        func keepRows(below end: Int) {
            newEntries += entries[row..<end]
            for slot in values.indices { values[slot] += old[slot][row..<end] }
            row = end
        }
        for change in changes {
            // The rows before the change's key are unchanged.
            var end = row
            while end < entries.count, entries[end].key < change.key { end += 1 }
            keepRows(below: end)
            // A removed or replaced key's old row goes.
            if row < entries.count, entries[row].key == change.key { row += 1 }
            switch change {
            case .removed:
                break
            case .replaced(let entry), .added(let entry):
                newEntries.append(entry)
                for slot in values.indices { values[slot].append(decoded[slot][decodedPosition]) }
                decodedPosition += 1
            }
        }
        keepRows(below: entries.count)
        entries = newEntries
        for (slot, property) in properties.enumerated() { columns[property] = values[slot] }
        rowsByKey = nil
        layout = RowLayout()
        linkRows = [:]
    }
}
