import StrataStorage

/// Not API: what a `Results` runs — its query, the matches it found for a database version, and
/// the walks over them. Not generic (`Results<Element>` is a thin wrapper that casts), so that
/// evaluating and walking cost no runtime generic metadata per object.
///
/// Thread safety: a live query is used by one thread at a time, as its database; a frozen one
/// may be used by any number of threads at once (its cache is then behind a lock).
@usableFromInline
final class ObjectQuery: @unchecked Sendable {
    let database: Database
    let schema: ObjectSchema
    let source: QuerySource
    let predicate: QueryNode?
    let sortKeys: [QuerySortKey]
    /// Key paths whose combined values each match must not share with an earlier match.
    let distinctPaths: [QueryPath]
    /// The matches and where their fields are, with the database version they were evaluated
    /// at (-1: not yet), so handing out an element does not look its key up again. Used
    /// directly by a live query; behind `sharedCache`'s lock by a frozen one.
    private var cache = Cache()
    private let sharedCache: Locked<Cache>?

    private struct Cache {
        var version = -1
        var rows: [ResultRow] = []
    }

    init(
        database: Database, schema: ObjectSchema, source: QuerySource = .all, predicate: QueryNode? = nil,
        sortKeys: [QuerySortKey] = [], distinctPaths: [QueryPath] = []
    ) {
        self.database = database
        self.schema = schema
        self.source = source
        self.predicate = predicate
        self.sortKeys = sortKeys
        self.distinctPaths = distinctPaths
        sharedCache = database.isFrozen ? Locked(Cache()) : nil
    }

    /// Whether the query is every object of the class in key order.
    private var isWholeClass: Bool {
        if case .all = source { return predicate == nil && sortKeys.isEmpty && distinctPaths.isEmpty }
        return false
    }

    /// The matches, evaluated at most once per database version.
    var rows: [ResultRow] {
        let version = database.readVersion()
        guard let sharedCache else {
            if cache.version != version { cache = Cache(version: version, rows: evaluate()) }
            return cache.rows
        }
        return sharedCache.withLock { cache in
            if cache.version != version { cache = Cache(version: version, rows: evaluate()) }
            return cache.rows
        }
    }

    /// Whether the matches for the database's version `version` are evaluated already.
    private func isEvaluated(at version: Int) -> Bool {
        guard let sharedCache else { return cache.version == version }
        return sharedCache.withLock { $0.version == version }
    }

    /// The number of matches; O(1) for every object of a class outside a write, a pass over
    /// cached columns for a predicate on the class's own properties.
    var count: Int {
        if isWholeClass, database.transaction == nil {
            _ = database.readVersion()
            return database.snapshot.count(in: Keyspace(schema.classID))
        }
        if distinctPaths.isEmpty, !isEvaluated(at: database.readVersion()), let matches = columnMatches() {
            return matches.matches.reduce(0) { $1 ? $0 + 1 : $0 }
        }
        return rows.count
    }

    /// For a query over the whole class whose predicate reads only the class's own properties
    /// against constants, outside a write: the class's columns (holding `also` too) and which
    /// rows match. Nil otherwise.
    /// `checkingIndex: false`: the caller found that the keys or an index do not answer it.
    func columnMatches(also extra: Set<Int> = [], checkingIndex: Bool = true) -> (columns: ClassColumns, matches: [Bool])? {
        guard case .all = source, database.transaction == nil else { return nil }
        // What the keys or an index answer reads fewer objects than a pass over the class.
        if checkingIndex, let predicate, prefersIndex(predicate) { return nil }
        guard let needs = predicate.map(ColumnPredicate.needs(of:)) ?? ColumnNeeds() else { return nil }
        guard let columns = database.columns(of: schema, reading: needs.own.union(extra)) else { return nil }
        var linked: [UInt32: ClassColumns] = [:]
        for (classID, need) in needs.linked {
            linked[classID] = database.columns(of: need.schema, reading: need.properties, indexingRows: true)
        }
        let matches = predicate.map { ColumnPredicate.evaluate($0, columns, linked: linked) }
            ?? [Bool](repeating: true, count: columns.entries.count)
        return (columns, matches)
    }

    /// The match at `position`, as a managed object.
    @usableFromInline
    func object(at position: Int) -> ObjectBase {
        let row = rows[position]
        // `rows` just made sure they are of the database's current version.
        return database.materialize(row.key, schema: schema, source: row.source, version: database.currentVersion)
    }

    /// A walk over the matches as of now: straight over the snapshot's entries when every
    /// object of the class is wanted in key order outside a write, else over the evaluation.
    @usableFromInline
    func makeWalk() -> ObjectWalk {
        let version = database.readVersion()
        if isWholeClass, database.transaction == nil, !isEvaluated(at: version) {
            return ObjectWalk(
                database: database, schema: schema, version: version,
                entries: database.snapshot.entries(in: Keyspace(schema.classID)).makeIterator(), rows: nil)
        }
        return ObjectWalk(database: database, schema: schema, version: version, entries: nil, rows: rows.makeIterator())
    }

    private func evaluate() -> [ResultRow] {
        if case .empty = source { return [] }
        let candidates = predicate.flatMap(indexedCandidates)
        if candidates == nil, !isWholeClass, let evaluation = evaluateOnColumns() { return ordered(evaluation) }
        let evaluator = QueryEvaluator(database: database)
        var rows: [ResultRow] = []
        var sortColumns = sortKeys.map { _ in [FieldValue]() }, distinctColumns = distinctPaths.map { _ in [FieldValue]() }
        func consider(_ key: ObjectKey, _ source: Database.FieldSource, _ fields: [FieldValue]) {
            let object = QueryObject(key: key, fields: fields)
            if let predicate, !evaluator.matches(predicate, object) { return }
            rows.append(ResultRow(key: key, source: source))
            for (position, sortKey) in sortKeys.enumerated() { sortColumns[position].append(evaluator.sortValue(sortKey.path, object)) }
            for (position, path) in distinctPaths.enumerated() { distinctColumns[position].append(evaluator.sortValue(path, object)) }
        }
        if case .collection = source {
            // The collection's objects, in its order (a list's duplicates included).
            for key in source.keys(in: database) {
                guard let fields = database.loadFields(key, schema: schema) else { continue }
                consider(key, .fields(fields), fields)
            }
        } else if isWholeClass {
            // Every object, in key order: nothing to decode.
            database.forEachEntry(of: schema) { key, source in rows.append(ResultRow(key: key, source: source)) }
        } else {
            // Decode only what the predicate, the sort and distinct read; a match keeps its
            // record (the fields decoded here are incomplete).
            let wanted = wantedFields { wanted in
                predicate?.forEachProperty { wanted[$0] = true }
                for sortKey in sortKeys { sortKey.path.forEachProperty { wanted[$0] = true } }
                for path in distinctPaths { path.forEachProperty { wanted[$0] = true } }
            }
            func considerWanted(_ key: ObjectKey, _ source: Database.FieldSource) {
                switch source {
                case .fields(let all): consider(key, source, all)
                case .record(let record): consider(key, source, database.decodeFields(of: record, schema: schema, only: wanted))
                }
            }
            if let candidates {
                // Few objects, which the caller will most likely read: decode each once, whole.
                database.forEachEntry(of: schema, at: candidates) { key, source in
                    switch source {
                    case .fields(let all): consider(key, source, all)
                    case .record(let record):
                        let all = database.decodeFields(of: record, schema: schema)
                        consider(key, .fields(all), all)
                    }
                }
            } else {
                database.forEachEntry(of: schema, considerWanted)
            }
        }
        return ordered(Evaluation(rows: rows, sortColumns: sortColumns, distinctColumns: distinctColumns))
    }

    /// Matches with the values they sort and are made distinct by: one column per sort key and
    /// per distinct key path, each in `rows` order.
    private struct Evaluation {
        var rows: [ResultRow]
        var sortColumns: [[FieldValue]]
        var distinctColumns: [[FieldValue]]
    }

    /// The matches sorted, then made distinct.
    private func ordered(_ evaluation: Evaluation) -> [ResultRow] {
        if sortKeys.isEmpty && distinctPaths.isEmpty { return evaluation.rows }
        var order = Array(evaluation.rows.indices)
        if !sortKeys.isEmpty { order = sorted(order, by: evaluation.sortColumns) }
        if !distinctPaths.isEmpty {
            // The first match of each combination of stored values, in the sorted order.
            var seen = Set<[FieldValue]>()
            order = order.filter { row in seen.insert(evaluation.distinctColumns.map { $0[row] }).inserted }
        }
        return order.map { evaluation.rows[$0] }
    }

    /// The evaluation read from the class's columns, when the predicate, the sort keys and the
    /// distinct key paths all read the class's own properties (see `columnMatches`) and neither
    /// the keys nor an index answer the predicate (the caller checked).
    private func evaluateOnColumns() -> Evaluation? {
        let sortIndices = sortKeys.map { ColumnPredicate.property(of: .path($0.path)) }
        let distinctIndices = distinctPaths.map { ColumnPredicate.property(of: .path($0)) }
        guard !sortIndices.contains(nil), !distinctIndices.contains(nil) else { return nil }
        let sortColumns = sortIndices.compactMap { $0 }, distinctColumns = distinctIndices.compactMap { $0 }
        guard let (columns, matches) = columnMatches(also: Set(sortColumns + distinctColumns), checkingIndex: false) else { return nil }
        var rows: [ResultRow] = []
        for (position, entry) in columns.entries.enumerated() where matches[position] {
            rows.append(ResultRow(key: ObjectKey(classID: schema.classID, key: entry.key), source: .record(entry)))
        }
        func matching(_ index: Int) -> [FieldValue] {
            let column = columns.column(index)
            return rows.count == column.count ? column : column.indices.filter { matches[$0] }.map { column[$0] }
        }
        return Evaluation(rows: rows, sortColumns: sortColumns.map(matching), distinctColumns: distinctColumns.map(matching))
    }

    /// Flags for the properties `mark` sets, one per property of the class.
    func wantedFields(_ mark: (inout [Bool]) -> Void) -> [Bool] {
        var wanted = [Bool](repeating: false, count: schema.properties.count)
        mark(&wanted)
        return wanted
    }

    /// Row positions in `sortKeys` order (stable), given each sort key's column of values.
    private func sorted(_ order: [Int], by columns: [[FieldValue]]) -> [Int] {
        if sortKeys.count == 1, let byIntegers = Self.sortedByIntegers(columns[0], ascending: sortKeys[0].ascending) {
            return byIntegers
        }
        return order.sorted { lhs, rhs in
            for (position, sortKey) in sortKeys.enumerated() {
                let comparison = FieldOrder.compare(columns[position][lhs], columns[position][rhs]) ?? 0
                if comparison != 0 { return sortKey.ascending ? comparison < 0 : comparison > 0 }
            }
            return lhs < rhs
        }
    }

    /// Row positions in the order of `values` (stable) when every value is an integer (the
    /// common sort on an Int property, without comparing `FieldValue`s); nil otherwise.
    static func sortedByIntegers(_ values: [FieldValue], ascending: Bool) -> [Int]? {
        var keyed: [(value: Int64, row: Int)] = []
        keyed.reserveCapacity(values.count)
        for (row, value) in values.enumerated() {
            guard case .int(let number) = value else { return nil }
            keyed.append((ascending ? number : ~number, row))   // ~ reverses the order exactly
        }
        keyed.sort { $0.value != $1.value ? $0.value < $1.value : $0.row < $1.row }
        return keyed.map(\.row)
    }

    /// The keys that may match, from the primary key or an index (see `IndexPlan`), in key
    /// order; nil when every object of the source must be looked at (a collection, no plan, or
    /// a range that holds too many of the class's objects).
    private func indexedCandidates(_ predicate: QueryNode) -> [ObjectKey]? {
        guard case .all = source else { return nil }
        switch IndexPlan.make(for: predicate, schema: schema) {
        case nil:
            return nil
        case .entries(let ranges)?:
            return database.indexedObjects(schema: schema, in: ranges)
        case .range(let range)?:
            return database.indexedObjects(schema: schema, in: [range], atMost: selectiveLimit)
        case .primaryKeys(let values)?:
            let optional = schema.primaryKey?.type.isOptional ?? false
            let keys = values.compactMap { PrimaryKeyEncoding.key(for: $0, optional: optional) }
            if keys.count < 2 { return keys.map { ObjectKey(classID: schema.classID, key: $0) } }
            return Set(keys).sorted().map { ObjectKey(classID: schema.classID, key: $0) }
        }
    }

    /// Whether the keys or an index give the candidates with fewer reads than a pass over the
    /// class: an equality always, a range when its entries are few (`IndexPlan.selectiveShare`).
    private func prefersIndex(_ predicate: QueryNode) -> Bool {
        switch IndexPlan.make(for: predicate, schema: schema) {
        case nil: return false
        case .primaryKeys?, .entries?: return true
        case .range(let range)?: return database.indexEntryCount(in: range, atMost: selectiveLimit) <= selectiveLimit
        }
    }

    /// The most candidates a range reads through its index.
    private var selectiveLimit: Int {
        IndexPlan.rangeLimit(classCount: (database.transaction?.base ?? database.snapshot).count(in: Keyspace(schema.classID)))
    }
}

/// One key a query's matches are sorted by: a key path (through to-one links) and a direction.
struct QuerySortKey {
    var path: QueryPath
    var ascending: Bool
}

extension QueryEvaluator {
    /// The value `object` is sorted by: the first value `path` reaches (null when none).
    func sortValue(_ path: QueryPath, _ object: QueryObject) -> FieldValue {
        Self.flatten(walk(path, from: object, resolvingLast: false)).first ?? .null
    }
}

/// Not API: a match of a query — its key, and its fields decoded (when the query had to read
/// them) or its record.
@usableFromInline
struct ResultRow {
    let key: ObjectKey
    let source: Database.FieldSource
}

/// Not API: a walk over a query's matches (see `ObjectQuery.makeWalk()`).
///
/// A value used by one thread at a time.
@usableFromInline
struct ObjectWalk {
    let database: Database
    let schema: ObjectSchema
    let version: Int
    // One of the two is set: the snapshot's entries (every object, read as the walk reaches it)
    // or evaluated matches. Separate optionals, so that `next()` advances them in place.
    var entries: Snapshot.Entries.Iterator?
    var rows: IndexingIterator<[ResultRow]>?

    /// The next match as a managed object, or nil after the last.
    @usableFromInline
    mutating func next() -> ObjectBase? {
        if entries != nil {
            guard let entry = entries!.next() else { return nil }
            let key = ObjectKey(classID: schema.classID, key: entry.key)
            return database.materialize(key, schema: schema, source: .record(entry), version: version)
        }
        guard let row = rows!.next() else { return nil }
        return database.materialize(row.key, schema: schema, source: row.source, version: version)
    }
}
