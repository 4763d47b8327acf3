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
        /// The matches and their fields, so reading an element does not read its record again.
        var rows: [(key: ObjectKey, fields: [FieldValue])] = []
    }

    init(database: Database, schema: ObjectSchema, predicate: QueryNode? = nil, sortKeys: [(index: Int, ascending: Bool)] = []) {
        self.database = database
        self.schema = schema
        self.predicate = predicate
        self.sortKeys = sortKeys
    }

    /// The matches, evaluated at most once per database version.
    private var rows: [(key: ObjectKey, fields: [FieldValue])] {
        let version = database.readVersion()
        if cache.version != version {
            cache.rows = evaluate()
            cache.version = version
        }
        return cache.rows
    }

    private func evaluate() -> [(key: ObjectKey, fields: [FieldValue])] {
        var rows: [(key: ObjectKey, fields: [FieldValue])] = []
        if let predicate, let keys = indexedCandidates(predicate) {
            for key in keys {
                guard let fields = database.loadFields(key, schema: schema),
                      QueryEvaluator.matches(predicate, fields) else { continue }
                rows.append((key, fields))
            }
        } else {
            database.forEachObject(of: schema) { key, fields in
                if let predicate, !QueryEvaluator.matches(predicate, fields) { return }
                rows.append((key, fields))
            }
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
        return rows
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
        return database.materialize(row.key, schema: schema, fields: row.fields) as! Element
    }

    /// The number of matching objects.
    public var count: Int { rows.count }

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
