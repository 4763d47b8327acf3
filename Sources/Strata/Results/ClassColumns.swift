import StrataStorage

/// The decoded values of some properties of every object of one class at one version of a
/// database view, in key order: what a query over the whole class reads when its predicate,
/// sort and aggregates compare properties of the class itself or of the objects its to-one
/// links lead to. Built on first use at a version, one pass decoding only the properties asked
/// for; a later query that asks for more gets a new table with the old columns and the new
/// ones; dropped when the view moves to a newer commit. A query then tests a column of values
/// instead of decoding each record, as Realm's column reads do.
///
/// Thread safety: immutable, so a frozen view's tables may be read by many threads at once;
/// new tables are made under the database's column lock.
final class ClassColumns: @unchecked Sendable {
    /// The database version (`Database.readVersion()`) the values are of.
    let version: Int
    /// Every object of the class, in key order.
    let entries: [Snapshot.Entry]
    /// Each decoded property's values, by property index, in `entries` order.
    let columns: [Int: [FieldValue]]
    /// The row of each key, for following links into this class (made when first asked for).
    let rowsByKey: [StorageKey: Int]?

    init(version: Int, entries: [Snapshot.Entry], columns: [Int: [FieldValue]] = [:], rowsByKey: [StorageKey: Int]? = nil) {
        self.version = version
        self.entries = entries
        self.columns = columns
        self.rowsByKey = rowsByKey
    }

    /// The values of the property at `index`. REQUIRES: it was decoded (`Database.columns`).
    func column(_ index: Int) -> [FieldValue] { columns[index] ?? [] }

    /// The row of the object whose key is `key`, if it exists. REQUIRES: rows are indexed.
    func row(of key: StorageKey) -> Int? { rowsByKey?[key] }

    /// This table with more columns.
    func adding(_ values: [[FieldValue]], for properties: [Int]) -> ClassColumns {
        var columns = self.columns
        for (position, index) in properties.enumerated() { columns[index] = values[position] }
        return ClassColumns(version: version, entries: entries, columns: columns, rowsByKey: rowsByKey)
    }

    /// This table with the row of each key.
    func indexingRows() -> ClassColumns {
        if rowsByKey != nil { return self }
        var rows = [StorageKey: Int](minimumCapacity: entries.count)
        for (row, entry) in entries.enumerated() { rows[entry.key] = row }
        return ClassColumns(version: version, entries: entries, columns: columns, rowsByKey: rows)
    }
}

extension Database {
    /// The columns of `schema` holding at least `properties` (and, with `indexingRows`, the row
    /// of each key), at this view's current version; nil inside a write (whose changes are not in
    /// the snapshot).
    /// - Complexity: O(1) when they are cached; otherwise one pass over the class's records
    ///   decoding the missing properties.
    func columns(of schema: ObjectSchema, reading properties: Set<Int>, indexingRows: Bool = false) -> ClassColumns? {
        guard transaction == nil else { return nil }
        let version = readVersion()
        return columnCache.withLock { cache in
            let cached = cache[schema.classID]
            var table = cached?.version == version
                ? cached!
                : ClassColumns(version: version, entries: Array(snapshot.entries(in: Keyspace(schema.classID))))
            let missing = properties.filter { table.columns[$0] == nil }.sorted()
            if !missing.isEmpty { table = table.adding(decodeColumns(missing, of: schema, entries: table.entries), for: missing) }
            if indexingRows { table = table.indexingRows() }
            cache[schema.classID] = table
            return table
        }
    }

    /// The columns of `properties` for `entries`: each record's bytes are walked once, straight
    /// into the columns (no array of fields per object). A damaged record reads as defaults and
    /// is noted, as `decodeFields` does.
    private func decodeColumns(_ properties: [Int], of schema: ObjectSchema, entries: [Snapshot.Entry]) -> [[FieldValue]] {
        var slots = [Int](repeating: -1, count: schema.properties.count)
        for (slot, index) in properties.enumerated() { slots[index] = slot }
        let defaults = properties.map { schema.defaultFields[$0] }
        var values = properties.map { _ in [FieldValue]() }
        for slot in values.indices { values[slot].reserveCapacity(entries.count) }
        for (row, entry) in entries.enumerated() {
            do {
                try snapshot.withValue(of: entry) { bytes in
                    try RecordCodec.forEachField(bytes, schema: schema, slots: slots) { slot, value in
                        // A property twice in a record: the last one counts, as in `decodeFields`.
                        if values[slot].count == row { values[slot].append(value) } else { values[slot][row] = value }
                    }
                }
            } catch {
                noteReadFailure(error, reading: schema.className)
                for slot in values.indices where values[slot].count > row { values[slot].removeLast() }
            }
            for slot in values.indices where values[slot].count == row { values[slot].append(defaults[slot]) }
        }
        return values
    }
}

/// What a column predicate reads: properties of the queried class, and properties of the
/// classes its to-one links lead to (`dog.age > 3`).
struct ColumnNeeds {
    var own: Set<Int> = []
    /// By class id: the linked class and the properties read of it.
    var linked: [UInt32: (schema: ObjectSchema, properties: Set<Int>)] = [:]

    mutating func formUnion(_ other: ColumnNeeds) {
        own.formUnion(other.own)
        for (classID, need) in other.linked { linked[classID, default: (need.schema, [])].properties.formUnion(need.properties) }
    }
}

/// A value a column predicate reads for each object: a property of the object, or a property
/// of the object a to-one link of it leads to (null when the link is nil or leads nowhere).
enum ColumnReference {
    case own(Int)
    case linked(link: Int, target: ObjectSchema, property: Int)

    init?(_ value: QueryValue) {
        guard case .path(let path) = value else { return nil }
        switch path.steps.count {
        case 1:
            guard case .property(let index, _, false) = path.steps[0] else { return nil }
            self = .own(index)
        case 2:
            guard case .property(let link, let target?, false) = path.steps[0], !target.isEmbedded,
                  case .property(let index, _, false) = path.steps[1] else { return nil }
            self = .linked(link: link, target: target, property: index)
        default:
            return nil
        }
    }

    var needs: ColumnNeeds {
        switch self {
        case .own(let index): return ColumnNeeds(own: [index])
        case .linked(let link, let target, let property):
            return ColumnNeeds(own: [link], linked: [target.classID: (target, [property])])
        }
    }

    /// The values, one per object of `columns`; `linked` holds the linked classes' columns.
    func values(_ columns: ClassColumns, linked: [UInt32: ClassColumns]) -> [FieldValue] {
        switch self {
        case .own(let index): return columns.column(index)
        case .linked(let link, let target, let property):
            guard let targetColumns = linked[target.classID] else { return [] }
            let targetValues = targetColumns.column(property)
            return columns.column(link).map { value in
                guard case .link(let key) = value, key.classID == target.classID,
                      let row = targetColumns.row(of: key.key) else { return .null }
                return targetValues[row]
            }
        }
    }
}

/// Predicates columns answer: `and`, `or` and `not` of comparisons between a property of the
/// queried class (or of an object a to-one link leads to) and constants (`age > 3`,
/// `name IN {…}`, `dog.age BETWEEN {1, 5}`).
enum ColumnPredicate {
    /// What `node` reads, or nil when it reads anything else (collections, backlinks, two
    /// properties compared with each other…).
    static func needs(of node: QueryNode) -> ColumnNeeds? {
        switch node {
        case .constant: return ColumnNeeds()
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            guard var left = needs(of: lhs), let right = needs(of: rhs) else { return nil }
            left.formUnion(right)
            return left
        case .not(let operand): return needs(of: operand)
        case .compare(let comparison):
            guard let reference = ColumnReference(comparison.lhs) else { return nil }
            switch comparison.rhs {
            case .constant, .list: return reference.needs
            default: return nil
            }
        }
    }

    /// The property index a value expression is, when it is one of the queried class.
    static func property(of value: QueryValue) -> Int? {
        guard case .own(let index)? = ColumnReference(value) else { return nil }
        return index
    }

    /// For each row of `columns`, whether it satisfies `node`. REQUIRES: `needs(of: node)` is
    /// not nil and its columns are decoded (the linked classes' in `linked`, keys indexed).
    static func evaluate(_ node: QueryNode, _ columns: ClassColumns, linked: [UInt32: ClassColumns]) -> [Bool] {
        switch node {
        case .constant(let value): return [Bool](repeating: value, count: columns.entries.count)
        case .and(let lhs, let rhs):
            var result = evaluate(lhs, columns, linked: linked)
            let right = evaluate(rhs, columns, linked: linked)
            for position in result.indices where result[position] { result[position] = right[position] }
            return result
        case .or(let lhs, let rhs):
            var result = evaluate(lhs, columns, linked: linked)
            let right = evaluate(rhs, columns, linked: linked)
            for position in result.indices where !result[position] { result[position] = right[position] }
            return result
        case .not(let operand):
            return evaluate(operand, columns, linked: linked).map { !$0 }
        case .compare(let comparison):
            let values = ColumnReference(comparison.lhs)?.values(columns, linked: linked) ?? []
            return values.map(QueryEvaluator.singleValueTest(comparison))
        }
    }
}
