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
    func columnMatches(also extra: Set<Int> = []) -> (columns: ClassColumns, matches: [Bool])? {
        guard case .all = source, database.transaction == nil else { return nil }
        // An equality an index answers reads fewer objects than any pass over the class.
        if let predicate, Self.equalityTerm(in: predicate, schema: schema) != nil { return nil }
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
        if !isWholeClass, let matches = evaluateOnColumns() { return ordered(matches, limit: limit) }
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
        } else if let predicate, let keys = indexedCandidates(predicate) {
            for key in keys {
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
            database.forEachEntry(of: schema) { key, source in
                consider(key, source, database.fields(of: source, schema: schema, only: wanted))
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
    /// paths all read the class's own properties (see `columnMatches`).
    private func evaluateOnColumns() -> Matches? {
        let indices = ordering.paths.map { ColumnPredicate.property(of: .path($0)) }
        guard !indices.contains(nil) else { return nil }
        let properties = indices.compactMap { $0 }
        guard let (columns, matches) = columnMatches(also: Set(properties)) else { return nil }
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

    /// The keys that may match when the predicate requires equality with one value or one of a
    /// list (`IN`) on the primary key or an indexed property; nil when every object of the
    /// class must be looked at.
    private func indexedCandidates(_ predicate: QueryNode) -> [ObjectKey]? {
        guard let (property, values) = Self.equalityTerm(in: predicate, schema: schema) else { return nil }
        var keys: [ObjectKey] = []
        for value in values {
            if property.isPrimaryKey {
                guard let key = PrimaryKeyEncoding.key(for: value, optional: property.type.isOptional) else { continue }
                keys.append(ObjectKey(classID: schema.classID, key: key))
            } else {
                keys += database.indexLookup(schema: schema, property: property, value: value)
            }
        }
        if values.count < 2 { return keys }
        var seen = Set<ObjectKey>()
        return keys.filter { seen.insert($0).inserted }.sorted { $0.key < $1.key }
    }

    /// A `property == constant` or `property IN {…}` term on a primary-key or indexed property
    /// that every match must satisfy (the predicate itself, or one side of a top-level `&&`),
    /// with its values.
    static func equalityTerm(in node: QueryNode, schema: ObjectSchema) -> (PropertySchema, [FieldValue])? {
        switch node {
        case .compare(let comparison):
            guard comparison.op == .equal, comparison.quantifier == .any, comparison.options.isEmpty,
                  let index = ColumnPredicate.property(of: comparison.lhs) else { return nil }
            let values: [FieldValue]
            switch comparison.rhs {
            case .constant(let value): values = [value]
            case .list(let list): values = list
            default: return nil
            }
            let property = schema.properties[index]
            // The index holds stored values; a constant of another kind (a Double against an
            // Int property) compares numerically, so it must scan.
            guard property.isIndexed, values.allSatisfy({ $0.isStoredKind(of: property.type) }) else { return nil }
            return (property, values)
        case .and(let lhs, let rhs):
            return equalityTerm(in: lhs, schema: schema) ?? equalityTerm(in: rhs, schema: schema)
        default:
            return nil
        }
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
