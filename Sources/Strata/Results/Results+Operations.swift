import Foundation

// Realm's Results operations beyond filtering: sorting by several key paths, distinct, and
// finding positions. Each returns live results or reads the current matches.

extension Results {
    /// The objects ordered by `sortDescriptors`, the first one deciding first:
    ///
    /// ```swift
    /// people.sorted(by: [SortDescriptor(keyPath: "dog.age", ascending: false), "name"])
    /// ```
    ///
    /// - Precondition: every key path names a property, or one through to-one links (Realm
    ///   raises an exception otherwise). Use ``sorted(checking:)`` for key paths from input.
    /// - Complexity: O(n log n) per evaluation, once per database version.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results where S.Element == SortDescriptor {
        trapping { try sorted(checking: sortDescriptors) }
    }

    /// The objects ordered by `sortDescriptors`, as ``sorted(by:)``, with an
    /// invalid key path reported as an error instead of stopping the program.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` when a key path is not one to one value.
    public func sorted<S: Sequence>(checking sortDescriptors: S) throws -> Results where S.Element == SortDescriptor {
        let keys = try sortDescriptors.map { descriptor in
            QuerySortKey(path: try singlePath(descriptor.keyPath), ascending: descriptor.ascending)
        }
        return Results(query: query.sorted(by: keys))
    }

    /// The first object of each distinct combination of the values of `keyPaths`, in the
    /// results' order as the sorts and distincts chained before it left it (values are equal
    /// when their stored values are: `1.0` and `1.00` are not; an object whose key path goes
    /// through a nil link is left out, as in Realm):
    ///
    /// ```swift
    /// let oneOfEachAge = dogs.distinct(by: ["age"])
    /// ```
    ///
    /// - Precondition: every key path names a property, or one through to-one links (Realm
    ///   raises an exception otherwise). Use ``distinct(checking:)`` for key paths from input.
    /// - Complexity: O(n) per evaluation, once per database version.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results where S.Element == String {
        trapping { try distinct(checking: keyPaths) }
    }

    /// The first object of each distinct combination, as ``distinct(by:)-9hjxu``, with an
    /// invalid key path reported as an error instead of stopping the program.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` when a key path is not one to one value.
    public func distinct<S: Sequence>(checking keyPaths: S) throws -> Results where S.Element == String {
        Results(query: query.distinct(by: try keyPaths.map(singlePath)))
    }

    /// The first object of each distinct combination of the values of `keyPaths`, in the
    /// results' order: `dogs.distinct(by: [\Dog.name, \Dog.age])`.
    /// - Precondition: each key path reads a single-valued `@Persisted` property.
    /// - Complexity: O(n) per evaluation, once per database version.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results where S.Element == PartialKeyPath<Element> {
        Results(query: query.distinct(by: keyPaths.map(singlePath)))
    }

    /// The position of `object` in the results, or nil when it is not among them (or is
    /// unmanaged).
    /// - Complexity: O(n).
    public func index(of object: Element) -> Int? {
        guard let state = object._strataState else { return nil }
        return query.firstIndex(of: state.key)
    }

    /// The position of the first object that matches `isIncluded`, or nil.
    /// - Complexity: O(n); reads only the properties the predicate reads.
    public func index(matching isIncluded: (Query<Element>) -> Query<Bool>) -> Int? {
        query.firstIndex(matching: isIncluded(Query<Element>(value: .path(QueryPath()), database: database))._node)
    }

    /// The objects at `indexes`, in order.
    /// - Precondition: every index is a valid position.
    public func objects(at indexes: IndexSet) -> [Element] { indexes.map { self[$0] } }

    // MARK: Key paths

    /// The query path a Swift key path stands for.
    /// - Precondition: it reads a single-valued `@Persisted` property (through to-one links).
    func singlePath(_ keyPath: PartialKeyPath<Element>) -> QueryPath {
        let path = Query<Element>(value: .path(QueryPath()), database: database)._appendingPath(keyPath)
        guard !path.isMultiple else {
            preconditionFailure("\(keyPath) does not name a single-valued @Persisted property of \(schema.className)")
        }
        return path
    }

    /// The query path a key path string names.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` when it is not a key path to one value.
    func singlePath(_ keyPath: String) throws -> QueryPath {
        try PredicateParser.sortPath(keyPath, schema: schema, schemas: database.schemas)
    }

    /// `body`'s results; its error stops the program (for the Realm-compatible forms whose
    /// checking form throws).
    func trapping<T>(_ body: () throws -> T) -> T {
        do {
            return try body()
        } catch let error as StrataError {
            preconditionFailure(error.message)
        } catch {
            preconditionFailure("\(error)")
        }
    }
}
