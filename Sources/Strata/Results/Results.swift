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
/// Thread safety: as the database it came from, so not `Sendable`; ``freeze()`` gives frozen
/// results, safe to read from any thread, as a `sending` value another task may take.
public struct Results<Element: Object>: RandomAccessCollection {
    /// The query and its cached evaluation (shared by copies of these results); not generic,
    /// so that what it runs costs no runtime generic metadata.
    @usableFromInline
    let query: ObjectQuery

    var database: Database { query.database }
    var schema: ObjectSchema { query.schema }

    init(database: Database, schema: ObjectSchema, source: QuerySource = .all) {
        query = ObjectQuery(database: database, schema: schema, source: source)
    }

    init(query: ObjectQuery) { self.query = query }

    // MARK: Collection

    /// The first position: 0.
    public var startIndex: Int { 0 }
    /// One past the last position: the number of matches (see ``count``).
    public var endIndex: Int { query.count }

    /// The object at `position`.
    /// - Complexity: O(1) after the first evaluation for the current version.
    @inlinable
    public subscript(position: Int) -> Element {
        unsafeDowncast(query.object(at: position), to: Element.self)
    }

    /// The number of matching objects.
    /// - Complexity: O(1) for every object of a class outside a write; otherwise O(n) the
    ///   first time for a database version (the query runs), then O(1).
    public var count: Int { query.count }

    /// Walks the matches as of the moment the iteration starts: a write during the walk does
    /// not change which objects it yields (their properties read the latest values).
    /// - Complexity: O(1) to start for every object of a class in key order, outside a write
    ///   (objects are read as the walk reaches them); otherwise what evaluating costs.
    @inlinable
    public func makeIterator() -> Iterator { Iterator(walk: query.makeWalk()) }

    /// Walks a `Results`; see ``Results/makeIterator()``.
    ///
    /// A value used by one thread at a time, as the results it walks.
    public struct Iterator: IteratorProtocol {
        @usableFromInline
        var walk: ObjectWalk

        @inlinable
        init(walk: ObjectWalk) { self.walk = walk }

        /// The next object, or nil after the last.
        @inlinable
        public mutating func next() -> Element? {
            guard let object = walk.next() else { return nil }
            return unsafeDowncast(object, to: Element.self)
        }
    }

    // MARK: Refining

    /// The objects that also match `isIncluded`.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) -> Results {
        Results(query: query.filtered(by: isIncluded(Query<Element>(value: .path(QueryPath()), database: database))._node))
    }

    /// The objects ordered by a property. The sort is stable over the results' order (objects
    /// with equal values keep it), and applies after the sorts and distincts chained before
    /// it, as in Realm: `sorted(by: \.age).sorted(by: \.name)` orders by name, then age.
    /// Values through a nil link (`dog.age` of an object with no dog) come last ascending and
    /// first descending; a nil value comes first ascending.
    /// - Complexity: O(n log n) per evaluation, once per database version.
    public func sorted<V: Comparable>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results {
        let path = singlePath(keyPath)
        return Results(query: query.sorted(by: [QuerySortKey(path: path, ascending: ascending)]))
    }

    /// The objects ordered by the property named `keyPath`.
    /// - Precondition: `keyPath` names a stored property of the class (Realm raises an
    ///   exception otherwise). Use ``sorted(checkingKeyPath:ascending:)`` for a name that comes
    ///   from input.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results {
        trapping { try sorted(checkingKeyPath: keyPath, ascending: ascending) }
    }

    /// The objects ordered by the property named `keyPath`, as ``sorted(byKeyPath:ascending:)``,
    /// with an unknown name reported as an error instead of stopping the program.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` when the name is not a key path to one value
    ///   (a property, or a property through to-one links: `"dog.age"`).
    public func sorted(checkingKeyPath keyPath: String, ascending: Bool = true) throws -> Results {
        Results(query: query.sorted(by: [QuerySortKey(path: try singlePath(keyPath), ascending: ascending)]))
    }

    /// These results as of the latest commit (frozen results: their own version), immutable and
    /// safe to use from any thread. The result is `sending`: it may be handed to another task.
    public func freeze() -> sending Results {
        Results(query: query.moved(to: database.freeze()))
    }

    /// Live results for the same query (these results when they are live already).
    public func thaw() -> Results {
        Results(query: query.moved(to: database.thaw()))
    }

    /// Whether these results are frozen.
    public var isFrozen: Bool { database.isFrozen }
}
