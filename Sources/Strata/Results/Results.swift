import StrataStorage

/// The objects of one class that match a query, in a given order: lazily evaluated and live.
///
/// ```swift
/// let old = db.objects(Dog.self).where { $0.age > 2 }.sorted(by: \.name)
/// print(old.count, old.first?.name ?? "-")
/// ```
///
/// Nothing is read until you ask for a count, an element, or iterate; a live `Results` always
/// reflects the latest commit (and the open write's changes), a frozen one its version.
///
/// Thread safety: as the database it came from; ``freeze()`` gives a frozen one for any thread.
public struct Results<Element: Object>: RandomAccessCollection, @unchecked Sendable {
    let database: Database
    let schema: ObjectSchema
    let predicate: QueryNode?
    let sortKeys: [(index: Int, ascending: Bool)]
    private let cache = Evaluation()

    final class Evaluation: @unchecked Sendable {
        var version = -1
        /// The matches and where their fields are, so handing out an element does not look its
        /// key up again.
        var rows: [Row] = []
    }

    /// A match: its key and its fields, decoded (when the query had to read them) or not.
    struct Row {
        let key: ObjectKey
        let source: Database.FieldSource
    }

    init(database: Database, schema: ObjectSchema, predicate: QueryNode? = nil, sortKeys: [(index: Int, ascending: Bool)] = []) {
        self.database = database
        self.schema = schema
        self.predicate = predicate
        self.sortKeys = sortKeys
    }

    /// The matches, evaluated at most once per database version.
    private var rows: [Row] {
        let version = database.readVersion()
        if cache.version != version {
            cache.rows = evaluate()
            cache.version = version
        }
        return cache.rows
    }

    private func evaluate() -> [Row] {
        var rows: [Row] = []
        if let predicate, let keys = indexedCandidates(predicate) {
            for key in keys {
                guard let fields = database.loadFields(key, schema: schema),
                      QueryEvaluator.matches(predicate, fields) else { continue }
                rows.append(Row(key: key, source: .fields(fields)))
            }
        } else if predicate == nil && sortKeys.isEmpty {
            // Every object, in key order: nothing to decode.
            database.forEachEntry(of: schema) { key, source in rows.append(Row(key: key, source: source)) }
        } else {
            // Decode only what the predicate and the sort read; a match keeps its record (the
            // fields decoded here are incomplete), plus the fields to sort on.
            var wanted = [Bool](repeating: false, count: schema.properties.count)
            predicate?.forEachProperty { wanted[$0] = true }
            for sortKey in sortKeys { wanted[sortKey.index] = true }
            var sortFields: [[FieldValue]] = []
            database.forEachEntry(of: schema) { key, source in
                let fields: [FieldValue]
                switch source {
                case .fields(let all): fields = all
                case .record(let record): fields = database.decodeFields(of: record, schema: schema, only: wanted)
                }
                if let predicate, !QueryEvaluator.matches(predicate, fields) { return }
                rows.append(Row(key: key, source: source))
                if !sortKeys.isEmpty { sortFields.append(fields) }
            }
            if !sortKeys.isEmpty { rows = sorted(rows, by: sortFields) }
            return rows
        }
        if !sortKeys.isEmpty {
            rows = sorted(rows, by: rows.map { row in
                guard case .fields(let fields) = row.source else { preconditionFailure("an index match is decoded") }
                return fields
            })
        }
        return rows
    }

    /// `rows` in `sortKeys` order (stable), given each row's fields.
    private func sorted(_ rows: [Row], by fields: [[FieldValue]]) -> [Row] {
        var order = Array(rows.indices)
        order.sort { lhs, rhs in
            for sortKey in sortKeys {
                let comparison = FieldOrder.compare(fields[lhs][sortKey.index], fields[rhs][sortKey.index]) ?? 0
                if comparison != 0 { return sortKey.ascending ? comparison < 0 : comparison > 0 }
            }
            return lhs < rhs
        }
        return order.map { rows[$0] }
    }

    /// The keys that may match when the predicate requires equality on the primary key or an
    /// indexed property; nil when every object of the class must be looked at.
    private func indexedCandidates(_ predicate: QueryNode) -> [ObjectKey]? {
        guard let (property, value) = Self.equalityTerm(in: predicate, schema: schema) else { return nil }
        if property.isPrimaryKey {
            guard let key = PrimaryKeyEncoding.key(for: value, optional: property.type.isOptional) else { return [] }
            return [ObjectKey(classID: schema.classID, key: key)]
        }
        return database.indexLookup(schema: schema, property: property, value: value)
    }

    /// An `property == constant` term on a primary-key or indexed property that every match
    /// must satisfy (the predicate itself, or one side of a top-level `&&`).
    static func equalityTerm(in node: QueryNode, schema: ObjectSchema) -> (PropertySchema, FieldValue)? {
        switch node {
        case .compare(.equal, .property(let path), .constant(let value)) where path.count == 1:
            let property = schema.properties[path[0]]
            // The index holds stored values; a constant of another kind (a Double against an
            // Int property) compares numerically, so it must scan.
            return property.isIndexed && value.isStoredKind(of: property.type) ? (property, value) : nil
        case .and(let lhs, let rhs):
            return equalityTerm(in: lhs, schema: schema) ?? equalityTerm(in: rhs, schema: schema)
        default:
            return nil
        }
    }

    // MARK: Collection

    /// The first position: 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of matches.
    /// - Complexity: O(n) the first time for a database version (the query runs), then O(1).
    public var endIndex: Int { rows.count }

    /// The object at `position`.
    /// - Complexity: O(1) after the first evaluation for the current version.
    public subscript(position: Int) -> Element {
        let row = rows[position]
        return element(row.key, source: row.source, version: cache.version)
    }

    /// The number of matching objects.
    /// - Complexity: O(1) for every object of a class outside a write; otherwise O(n) the
    ///   first time for a database version (the query runs), then O(1).
    public var count: Int {
        if predicate == nil, database.transaction == nil {
            _ = database.readVersion()
            return database.snapshot.count(in: Keyspace(schema.classID))
        }
        return rows.count
    }

    /// Walks the matches as of the moment the iteration starts: a write during the walk does
    /// not change which objects it yields (their properties read the latest values).
    /// - Complexity: O(1) to start for every object of a class in key order, outside a write
    ///   (objects are read as the walk reaches them); otherwise what evaluating costs.
    public func makeIterator() -> Iterator {
        let version = database.readVersion()
        if predicate == nil, sortKeys.isEmpty, database.transaction == nil, cache.version != version {
            return Iterator(
                results: self, version: version,
                entries: database.snapshot.entries(in: Keyspace(schema.classID)).makeIterator(), rows: nil)
        }
        return Iterator(results: self, version: version, entries: nil, rows: rows.makeIterator())
    }

    /// Walks a `Results`; see ``Results/makeIterator()``.
    public struct Iterator: IteratorProtocol {
        let results: Results
        let version: Int
        // One of the two is set: the snapshot's entries (every object, read as the walk
        // reaches it) or evaluated matches. Separate optionals, so that `next()` advances them
        // in place.
        var entries: Snapshot.Entries.Iterator?
        var rows: IndexingIterator<[Row]>?

        /// The next object, or nil after the last.
        public mutating func next() -> Element? {
            if entries != nil {
                guard let entry = entries!.next() else { return nil }
                let key = ObjectKey(classID: results.schema.classID, key: entry.key)
                return results.element(key, source: .record(entry), version: version)
            }
            guard let row = rows!.next() else { return nil }
            return results.element(row.key, source: row.source, version: version)
        }
    }

    /// A managed object for a match read at the view's version `version`.
    private func element(_ key: ObjectKey, source: Database.FieldSource, version: Int) -> Element {
        unsafeDowncast(database.materialize(key, schema: schema, source: source, version: version), to: Element.self)
    }

    // MARK: Refining

    /// The objects that also match `isIncluded`.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results {
        let node = isIncluded(Query<Element>(.property([]), database: database)).node
        return Results(
            database: database, schema: schema,
            predicate: predicate.map { .and($0, node) } ?? node, sortKeys: sortKeys)
    }

    /// The objects ordered by a property.
    public func sorted<V: Comparable>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results {
        guard let path = KeyPathTracer.trace(keyPath, in: database), path.count == 1 else {
            preconditionFailure("\(keyPath) does not name a @Persisted property of \(schema.className)")
        }
        return Results(database: database, schema: schema, predicate: predicate, sortKeys: [(path[0], ascending)] + sortKeys)
    }

    /// The objects ordered by the property named `keyPath`.
    /// - Precondition: `keyPath` names a stored property of the class.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results {
        guard let property = schema[keyPath] else {
            preconditionFailure("\(schema.className) has no property '\(keyPath)' to sort by")
        }
        return Results(database: database, schema: schema, predicate: predicate, sortKeys: [(property.index, ascending)] + sortKeys)
    }

    /// These results as of the latest commit, immutable and safe to use from any thread.
    public func freeze() -> Results {
        Results(database: database.freeze(), schema: schema, predicate: predicate, sortKeys: sortKeys)
    }

    /// Live results for the same query (these results when they are live already).
    public func thaw() -> Results {
        Results(database: database.thaw(), schema: schema, predicate: predicate, sortKeys: sortKeys)
    }

    /// Whether these results are frozen.
    public var isFrozen: Bool { database.isFrozen }
}
