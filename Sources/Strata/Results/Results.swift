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
        var keys: [ObjectKey] = []
    }

    init(database: Database, schema: ObjectSchema, predicate: QueryNode? = nil, sortKeys: [(index: Int, ascending: Bool)] = []) {
        self.database = database
        self.schema = schema
        self.predicate = predicate
        self.sortKeys = sortKeys
    }

    /// The matching keys, evaluated at most once per database version.
    private var keys: [ObjectKey] {
        let version = database.readVersion()
        if cache.version != version {
            cache.keys = evaluate()
            cache.version = version
        }
        return cache.keys
    }

    private func evaluate() -> [ObjectKey] {
        var rows: [(key: ObjectKey, fields: [FieldValue])] = []
        for key in candidateKeys() {
            guard let fields = database.loadFields(key, schema: schema) else { continue }
            if let predicate, !QueryEvaluator.matches(predicate, fields) { continue }
            rows.append((key, fields))
        }
        if !sortKeys.isEmpty {
            rows.sort { lhs, rhs in
                for sortKey in sortKeys {
                    let order = FieldOrder.compare(lhs.fields[sortKey.index], rhs.fields[sortKey.index]) ?? 0
                    if order != 0 { return sortKey.ascending ? order < 0 : order > 0 }
                }
                return false
            }
        }
        return rows.map(\.key)
    }

    /// The keys that may match: from the primary key or a secondary index when the predicate
    /// requires equality on one, otherwise every object of the class.
    private func candidateKeys() -> [ObjectKey] {
        guard let predicate, let (property, value) = Self.equalityTerm(in: predicate, schema: schema) else {
            return database.keys(of: schema)
        }
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

    public var startIndex: Int { 0 }
    public var endIndex: Int { keys.count }

    /// The object at `position`.
    /// - Complexity: O(1) after the first evaluation for the current version.
    public subscript(position: Int) -> Element {
        let key = keys[position]
        return database.materialize(key, schema: schema) as! Element
    }

    /// The number of matching objects.
    public var count: Int { keys.count }

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
