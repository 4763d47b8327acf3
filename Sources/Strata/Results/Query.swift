import Foundation

/// A predicate or a value in a type-safe query: what `$0` and its properties are in
/// `results.where { $0.age > 2 && $0.name.starts(with: "R") }`.
///
/// Build queries with property access, the comparison operators, `&&`, `||`, `!`, and the
/// string methods; they are evaluated by the database, not run as Swift code.
///
/// A value type built and used inside the closure it is passed to; not `Sendable` (it refers to
/// the database whose schema resolves key paths).
@dynamicMemberLookup
public struct Query<T> {
    let node: QueryNode
    /// The database whose schema resolves key paths.
    let database: Database

    init(_ node: QueryNode, database: Database) {
        self.node = node
        self.database = database
    }

    /// The query for a property of the object this query stands for.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> where T: ObjectBase {
        guard case .property(let prefix) = node, prefix.isEmpty else {
            preconditionFailure("queries across links are not supported: \(keyPath) is not a property of the queried class")
        }
        guard let path = KeyPathTracer.trace(keyPath, in: database) else {
            preconditionFailure("\(keyPath) does not name a @Persisted property")
        }
        return Query<V>(.property(path), database: database)
    }
}

/// The expression tree of a query.
indirect enum QueryNode: Sendable {
    /// A property, as a path of property indices (one element: paths across links are not
    /// supported).
    case property([Int])
    case constant(FieldValue)
    case compare(ComparisonOperator, QueryNode, QueryNode)
    case string(StringOperator, QueryNode, QueryNode, caseInsensitive: Bool)
    case and(QueryNode, QueryNode)
    case or(QueryNode, QueryNode)
    case not(QueryNode)
}

extension QueryNode {
    /// Calls `body` with the index of every property the predicate reads (the first step of
    /// each path: the property of the queried class).
    func forEachProperty(_ body: (Int) -> Void) {
        switch self {
        case .property(let path): if let first = path.first { body(first) }
        case .constant: break
        case .compare(_, let lhs, let rhs), .string(_, let lhs, let rhs, _), .and(let lhs, let rhs), .or(let lhs, let rhs):
            lhs.forEachProperty(body)
            rhs.forEachProperty(body)
        case .not(let operand): operand.forEachProperty(body)
        }
    }
}

enum ComparisonOperator: Sendable { case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual }
enum StringOperator: Sendable { case beginsWith, endsWith, contains, like }

extension Query where T: _Persistable {
    private func compare(_ op: ComparisonOperator, _ value: T) -> Query<Bool> {
        let field = (try? value._strataWrite(nil)) ?? .null
        return Query<Bool>(.compare(op, node, .constant(field)), database: database)
    }

    /// Equal to a value.
    public static func == (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(.equal, rhs) }
    /// Not equal to a value.
    public static func != (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(.notEqual, rhs) }
}

extension Query where T: _Persistable & Comparable {
    /// Less than a value.
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(.less, rhs) }
    /// At most a value.
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(.lessOrEqual, rhs) }
    /// Greater than a value.
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(.greater, rhs) }
    /// At least a value.
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs.compare(.greaterOrEqual, rhs) }
}

extension Query where T == String {
    private func string(_ op: StringOperator, _ value: String, _ caseInsensitive: Bool) -> Query<Bool> {
        Query<Bool>(.string(op, node, .constant(.string(value)), caseInsensitive: caseInsensitive), database: database)
    }

    /// The string starts with `prefix`.
    public func starts(with prefix: String, caseInsensitive: Bool = false) -> Query<Bool> {
        string(.beginsWith, prefix, caseInsensitive)
    }
    /// The string ends with `suffix`.
    public func ends(with suffix: String, caseInsensitive: Bool = false) -> Query<Bool> {
        string(.endsWith, suffix, caseInsensitive)
    }
    /// The string contains `other`.
    public func contains(_ other: String, caseInsensitive: Bool = false) -> Query<Bool> {
        string(.contains, other, caseInsensitive)
    }
}

extension Query where T == Bool {
    /// Both predicates hold.
    public static func && (lhs: Query, rhs: Query) -> Query { Query(.and(lhs.node, rhs.node), database: lhs.database) }
    /// Either predicate holds.
    public static func || (lhs: Query, rhs: Query) -> Query { Query(.or(lhs.node, rhs.node), database: lhs.database) }
    /// The predicate does not hold.
    public static prefix func ! (query: Query) -> Query { Query(.not(query.node), database: query.database) }
}
