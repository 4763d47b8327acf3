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
    /// The sorts and distincts, in the order they were asked for.
    let ordering: QueryOrdering
    /// The matches in order (all of them, or the first ones a bounded read asked for) and
    /// where their fields are, with the database version they were evaluated at (-1: not yet),
    /// so handing out an element does not look its key up again. Used directly by a live
    /// query; behind `sharedCache`'s lock by a frozen one.
    private var cache = Cache()
    private let sharedCache: Locked<Cache>?

    private struct Cache {
        var version = -1
        /// The first matches in order: all of them when `rows.count == count`.
        var rows: [ResultRow] = []
        /// How many matches there are.
        var count = 0

        /// Whether the cache, at `version`, holds the first `wanted` matches (nil: all).
        func holds(_ wanted: Int?, at version: Int) -> Bool {
            guard self.version == version else { return false }
            return rows.count == count || wanted.map { rows.count >= $0 } ?? false
        }
    }

    init(
        database: Database, schema: ObjectSchema, source: QuerySource = .all, predicate: QueryNode? = nil,
        ordering: QueryOrdering = QueryOrdering()
    ) {
        self.database = database
        self.schema = schema
        self.source = source
        self.predicate = predicate
        self.ordering = ordering
        sharedCache = database.isFrozen ? Locked(Cache()) : nil
    }

    /// Whether the query is every object of the class in key order.
    private var isWholeClass: Bool {
        if case .all = source { return predicate == nil && ordering.isEmpty }
        return false
    }

    /// Every match, in order, evaluated at most once per database version.
    var rows: [ResultRow] { evaluation(first: nil, evaluating: nil).rows }

    /// Makes sure the first `length` matches in order are evaluated, and returns how many of
    /// them there are (`length`, or fewer when there are fewer matches). A sort keeps only the
    /// best `length` when that is fewer than its matches, so the first k of a sorted query cost
    /// O(n log k); reading positions below `length` then uses them.
    func evaluateFirst(_ length: Int) -> Int {
        let length = Swift.max(length, 0)
        return Swift.min(length, evaluation(first: length, evaluating: length).count)
    }

    /// The cache at the database's current version, holding at least the first `wanted`
    /// matches in order (nil: all); when it does not, the query runs again for the first
    /// `limit` (nil: all).
    private func evaluation(first wanted: Int?, evaluating limit: Int?) -> Cache {
        let version = database.readVersion()
        func current(_ cache: inout Cache) -> Cache {
            if !cache.holds(wanted, at: version) {
                // Rows of an older version go first: rows of a column table hold the table, and
                // a table nothing else holds is brought up to date in place rather than copied.
                if cache.version != version { cache = Cache() }
                let (rows, count) = evaluate(limit: limit)
                cache = Cache(version: version, rows: rows, count: count)
            }
            return cache
        }
        guard let sharedCache else { return current(&cache) }
        return sharedCache.withLock(current)
    }

    /// The number of matches, when they are evaluated for the database's version `version`.
    private func evaluatedCount(at version: Int) -> Int? {
        guard let sharedCache else { return cache.version == version ? cache.count : nil }
        return sharedCache.withLock { $0.version == version ? $0.count : nil }
    }

    /// Whether every match is evaluated for the database's version `version`.
    private func isEvaluated(at version: Int) -> Bool {
        guard let sharedCache else { return cache.holds(nil, at: version) }
        return sharedCache.withLock { $0.holds(nil, at: version) }
    }

    /// The number of matches; O(1) for every object of a class outside a write, a pass over
    /// cached columns for a predicate on the class's own properties.
    var count: Int {
        let version = database.readVersion()
        if let count = evaluatedCount(at: version) { return count }
        if isWholeClass, database.transaction == nil {
            return database.snapshot.count(in: Keyspace(schema.classID))
        }
        if !ordering.hasDistinct, let matches = columnMatches() {
            return matches.matches.reduce(0) { $1 ? $0 + 1 : $0 }
        }
        return evaluation(first: nil, evaluating: nil).count
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
        _ = database.readVersion()   // every table below is of this version
        var linked: [UInt32: ClassColumns] = [:]
        for (classID, need) in needs.linked {
            linked[classID] = database.columns(of: need.schema, reading: need.properties, indexingRows: true)
        }
        let links = needs.links.compactMapValues { classID in linked[classID].map { (table: $0, classID: classID) } }
        guard let columns = database.columns(of: schema, reading: needs.own.union(extra), resolvingLinks: links) else { return nil }
        let matches = predicate.map { ColumnPredicate.evaluate($0, columns, linked: linked) }
            ?? [Bool](repeating: true, count: columns.entries.count)
        return (columns, matches)
    }

    /// The match at `position`, as a managed object.
    @usableFromInline
    func object(at position: Int) -> ObjectBase {
        // The first matches a bounded read kept serve their positions; others need them all.
        let row = evaluation(first: position + 1, evaluating: nil).rows[position]
        // The evaluation just made sure it is of the database's current version.
        return database.materialize(row.key, schema: schema, source: row.source, version: database.currentVersion)
    }

    /// A walk over the matches as of now: straight over the snapshot's entries when every
    /// object of the class is wanted in key order outside a write, else over the evaluation.
    @usableFromInline
    func makeWalk() -> ObjectWalk {
        let version = database.readVersion()
        if isWholeClass, database.transaction == nil, !isEvaluated(at: version),
           let table = database.walkColumns(of: schema) {
            return ObjectWalk(database: database, schema: schema, version: version, table: table, rows: nil)
        }
        return ObjectWalk(database: database, schema: schema, version: version, table: nil, rows: rows.makeIterator())
    }

    /// The matches in order, at most `limit` of them, and how many there are in all.
    private func evaluate(limit: Int?) -> (rows: [ResultRow], count: Int) {
        if case .empty = source { return ([], 0) }
        let candidates = predicate.flatMap(indexedCandidates)
        if candidates == nil, !isWholeClass, let matches = evaluateOnColumns() { return ordered(matches, limit: limit) }
        let evaluator = QueryEvaluator(database: database)
        let paths = ordering.paths
        var rows: [ResultRow] = []
        var columns = OrderingColumns(
            count: 0, values: paths.map { _ in [] }, unlinked: paths.map { $0.steps.count > 1 ? [] : nil })
        func consider(_ key: ObjectKey, _ source: Database.FieldSource, _ fields: [FieldValue]) {
            let object = QueryObject(key: key, fields: fields)
            if let predicate, !evaluator.matches(predicate, object) { return }
            rows.append(ResultRow(key: key, source: source))
            columns.append(paths.map { evaluator.orderingValue($0, object) })
        }
        if case .collection = source {
            // The collection's objects, in its order (a list's duplicates included).
            for key in source.keys(in: database) {
                guard let fields = database.loadFields(key, schema: schema) else { continue }
                consider(key, .fields(fields), fields)
            }
        } else if isWholeClass, let limit, database.transaction == nil {
            // The first objects in key order, straight from the snapshot's entries.
            let keyspace = Keyspace(schema.classID)
            for entry in database.snapshot.entries(in: keyspace).prefix(limit) {
                rows.append(ResultRow(key: ObjectKey(classID: schema.classID, key: entry.key), source: .record(entry)))
            }
            columns.count = database.snapshot.count(in: keyspace)
        } else if isWholeClass {
            // Every object, in key order: nothing to decode.
            database.forEachEntry(of: schema) { key, source in rows.append(ResultRow(key: key, source: source)) }
            columns.count = rows.count
        } else {
            // Decode only what the predicate and the ordering read; a match keeps its record
            // (the fields decoded here are incomplete).
            let wanted = wantedFields { wanted in
                predicate?.forEachProperty { wanted[$0] = true }
                for path in paths { path.forEachProperty { wanted[$0] = true } }
            }
            if let candidates {
                // Few objects, which the caller will most likely read: decode each once, whole.
                database.forEachEntry(of: schema, at: candidates) { key, source in
                    let all = database.fields(of: source, schema: schema)
                    consider(key, .fields(all), all)
                }
            } else {
                database.forEachEntry(of: schema) { key, source in
                    consider(key, source, database.fields(of: source, schema: schema, only: wanted))
                }
            }
        }
        return ordered(Matches(rows: .rows(rows), columns: columns), limit: limit)
    }

    /// The matches and the values they are ordered by.
    private struct Matches {
        var rows: MatchRows
        var columns: OrderingColumns
    }

    /// The matches in `ordering`'s order, at most `limit` of them, and how many there are.
    private func ordered(_ matches: Matches, limit: Int?) -> (rows: [ResultRow], count: Int) {
        guard ordering.isEmpty else {
            let (positions, count) = ordering.order(matches.columns, limit: limit)
            return (positions.map { matches.rows[$0] }, count)
        }
        let count = matches.columns.count
        return (matches.rows.prefix(Swift.min(count, limit ?? count)), count)
    }

    /// The evaluation read from the class's columns, when the predicate and the ordering's key
    /// paths all read the class's own properties (see `columnMatches`) and neither the keys nor
    /// an index answer the predicate (the caller checked).
    private func evaluateOnColumns() -> Matches? {
        let indices = ordering.paths.map { ColumnPredicate.property(of: .path($0)) }
        guard !indices.contains(nil) else { return nil }
        let properties = indices.compactMap { $0 }
        guard let (columns, matches) = columnMatches(also: Set(properties), checkingIndex: false) else { return nil }
        let positions: [Int]? = matches.allSatisfy { $0 } ? nil : matches.indices.filter { matches[$0] }
        func matching(_ index: Int) -> [FieldValue] {
            let column = columns.column(index)
            return positions.map { $0.map { column[$0] } } ?? column
        }
        return Matches(
            rows: .table(columns, classID: schema.classID, positions: positions),
            columns: OrderingColumns(
                count: positions?.count ?? columns.entries.count, values: properties.map(matching),
                unlinked: properties.map { _ in nil }))
    }

    /// Flags for the properties `mark` sets, one per property of the class.
    func wantedFields(_ mark: (inout [Bool]) -> Void) -> [Bool] {
        var wanted = [Bool](repeating: false, count: schema.properties.count)
        mark(&wanted)
        return wanted
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
    // One of the two is set: a column table of every object of the class (each handed out
    // with its row, so that reads of decoded properties read the columns) or evaluated
    // matches. Separate optionals, so that `next()` advances them in place.
    var table: ClassColumns?
    var rows: IndexingIterator<[ResultRow]>?
    /// The next row of `table`.
    var row = 0

    /// How many objects a walk hands out between two looks at whether its objects are read for
    /// properties its table has no column of (see `Database.walkColumns`).
    static let demandInterval = 1024

    init(database: Database, schema: ObjectSchema, version: Int, table: ClassColumns?, rows: IndexingIterator<[ResultRow]>?) {
        self.database = database
        self.schema = schema
        self.version = version
        self.table = table
        self.rows = rows
    }

    /// The next match as a managed object, or nil after the last.
    @usableFromInline
    mutating func next() -> ObjectBase? {
        if let current = table {
            guard row < current.entries.count else { return nil }
            if row > 0, row % Self.demandInterval == 0, database.currentVersion == version,
               let wider = database.walkColumns(of: schema, having: current), wider.version == version {
                table = wider
            }
            defer { row += 1 }
            let key = ObjectKey(classID: schema.classID, key: current.entries[row].key)
            let object = schema.type.init()
            let state = ObjectState(database: database, schema: schema, key: key)
            state.prime(table: table!, row: row, version: version)
            database.attach(object, state: state)
            return object
        }
        guard let row = rows!.next() else { return nil }
        return database.materialize(row.key, schema: schema, source: row.source, version: version)
    }
}
