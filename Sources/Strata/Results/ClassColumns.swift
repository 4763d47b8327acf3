import StrataStorage

/// The decoded values of some properties of every object of one class at one version of a
/// database view, in key order: what a query over the whole class reads when its predicate,
/// sort and aggregates compare properties of the class itself (no links). Built on first use at
/// a version, one pass decoding only the properties asked for, and extended by later queries
/// that ask for more; dropped when the view moves to a newer commit. A query then tests a
/// column of values instead of decoding each record, as Realm's column reads do.
///
/// Thread safety: immutable once published; built under the database's column lock.
final class ClassColumns {
    /// The database version (`Database.readVersion()`) the values are of.
    let version: Int
    /// Every object of the class, in key order.
    let entries: [Snapshot.Entry]
    /// Each decoded property's values, by property index, in `entries` order.
    private(set) var columns: [Int: [FieldValue]] = [:]

    init(version: Int, entries: [Snapshot.Entry]) {
        self.version = version
        self.entries = entries
    }

    /// The values of the property at `index`. REQUIRES: it was decoded (`Database.columns`).
    func column(_ index: Int) -> [FieldValue] { columns[index] ?? [] }

    func add(_ values: [[FieldValue]], for properties: [Int]) {
        for (position, index) in properties.enumerated() { columns[index] = values[position] }
    }

    func hasColumns(_ properties: Set<Int>) -> Bool { properties.allSatisfy { columns[$0] != nil } }
}

extension Database {
    /// The columns of `schema` holding at least `properties`, at this view's current version;
    /// nil inside a write (whose changes are not in the snapshot).
    /// - Complexity: O(1) when they are cached; otherwise one pass over the class's records
    ///   decoding the missing properties.
    func columns(of schema: ObjectSchema, reading properties: Set<Int>) -> ClassColumns? {
        guard transaction == nil else { return nil }
        let version = readVersion()
        return columnCache.withLock { cache in
            let cached = cache[schema.classID]
            let table = cached?.version == version
                ? cached!
                : ClassColumns(version: version, entries: Array(snapshot.entries(in: Keyspace(schema.classID))))
            let missing = properties.filter { table.columns[$0] == nil }.sorted()
            if !missing.isEmpty { decodeColumns(missing, of: schema, into: table) }
            cache[schema.classID] = table
            return table
        }
    }

    private func decodeColumns(_ properties: [Int], of schema: ObjectSchema, into table: ClassColumns) {
        var wanted = [Bool](repeating: false, count: schema.properties.count)
        for index in properties { wanted[index] = true }
        var values = properties.map { _ in [FieldValue]() }
        for position in values.indices { values[position].reserveCapacity(table.entries.count) }
        for entry in table.entries {
            let fields = decodeFields(of: entry, schema: schema, only: wanted)
            for (position, index) in properties.enumerated() { values[position].append(fields[index]) }
        }
        table.add(values, for: properties)
    }
}

/// Predicates a column answers: `and`, `or` and `not` of comparisons between a property of the
/// queried class and constants (`age > 3`, `name IN {…}`, `age BETWEEN {1, 5}`).
enum ColumnPredicate {
    /// The properties `node` reads, or nil when it reads anything but the class's own
    /// single-valued properties against constants.
    static func properties(of node: QueryNode) -> Set<Int>? {
        switch node {
        case .constant: return []
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            guard let left = properties(of: lhs), let right = properties(of: rhs) else { return nil }
            return left.union(right)
        case .not(let operand): return properties(of: operand)
        case .compare(let comparison):
            guard let index = property(of: comparison.lhs) else { return nil }
            switch comparison.rhs {
            case .constant, .list: return [index]
            default: return nil
            }
        }
    }

    /// The property index a value expression is, when it is one of the queried class.
    static func property(of value: QueryValue) -> Int? {
        guard case .path(let path) = value, path.steps.count == 1,
              case .property(let index, _, false) = path.steps[0] else { return nil }
        return index
    }

    /// For each row of `columns`, whether it satisfies `node`. REQUIRES: `properties(of: node)`
    /// is not nil and its columns are decoded.
    static func evaluate(_ node: QueryNode, _ columns: ClassColumns) -> [Bool] {
        switch node {
        case .constant(let value): return [Bool](repeating: value, count: columns.entries.count)
        case .and(let lhs, let rhs):
            var result = evaluate(lhs, columns)
            let right = evaluate(rhs, columns)
            for position in result.indices where result[position] { result[position] = right[position] }
            return result
        case .or(let lhs, let rhs):
            var result = evaluate(lhs, columns)
            let right = evaluate(rhs, columns)
            for position in result.indices where !result[position] { result[position] = right[position] }
            return result
        case .not(let operand):
            return evaluate(operand, columns).map { !$0 }
        case .compare(let comparison):
            let column = columns.column(property(of: comparison.lhs) ?? 0)
            let test = QueryEvaluator.singleValueTest(comparison)
            return column.map(test)
        }
    }
}
