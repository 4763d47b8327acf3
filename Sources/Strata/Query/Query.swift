import Foundation

/// A predicate or a value in a type-safe query: what `$0` and its properties are in
/// `results.where { $0.age > 2 && $0.name.starts(with: "R") }`.
///
/// Build queries with property access (through links, embedded objects, collections, maps and
/// backlinks: `$0.dog.age`, `$0.dogs.age`, `$0.scores["math"]`, `$0.owners.count`), the
/// comparison operators, `&&`, `||`, `!`, and the methods below; they are evaluated by the
/// database, not run as Swift code. A comparison through a list, set, map or backlinks holds
/// when ANY value satisfies it, as in Realm.
///
/// A value type built and used inside the closure it is passed to; not `Sendable` (it refers to
/// the database whose schema resolves key paths).
@dynamicMemberLookup
public struct Query<T> {
    /// A value expression, or a predicate (a `Query<Bool>` built by a comparison).
    enum Expression {
        case value(QueryValue)
        case predicate(QueryNode)
    }

    let _expression: Expression
    /// The database whose schema resolves key paths.
    let _database: Database

    init(_ expression: Expression, database: Database) {
        self._expression = expression
        self._database = database
    }

    init(value: QueryValue, database: Database) { self.init(.value(value), database: database) }

    /// The key path this query stands for, or nil (a constant, an aggregate, a predicate).
    var _path: QueryPath? {
        if case .value(.path(let path)) = _expression { return path }
        return nil
    }

    var _value: QueryValue {
        switch _expression {
        case .value(let value): return value
        case .predicate(let node): return .predicate(node)
        }
    }

    /// `self` followed by the properties `keyPath` reads on an object of class `Root`.
    func _appending<Root: ObjectBase, V>(_ keyPath: KeyPath<Root, V>) -> Query<V> {
        Query<V>(value: .path(_appendingPath(keyPath)), database: _database)
    }

    /// The key path `self` followed by the properties `keyPath` reads on an object of class
    /// `Root`.
    func _appendingPath<Root: ObjectBase>(_ keyPath: PartialKeyPath<Root>) -> QueryPath {
        guard let base = _path else {
            preconditionFailure("\(keyPath): only a key path can be followed by a property")
        }
        guard let schema = _database.schemas.schema(for: Root.self),
              let indices = KeyPathTracer.trace(keyPath, in: _database) else {
            preconditionFailure("\(keyPath) does not name a @Persisted property")
        }
        var steps = base.steps
        var current = schema
        for index in indices {
            let step = QueryStep.make(for: current.properties[index], in: _database.schemas)
            steps.append(step)
            guard let next = step.targetSchema else { break }
            current = next
        }
        return QueryPath(steps)
    }

    /// The query for a property of the object this query stands for.
    public subscript<V>(dynamicMember keyPath: KeyPath<T, V>) -> Query<V> where T: ObjectBase {
        _appending(keyPath)
    }

    /// The query for a property of the object an optional link leads to (`$0.dog.age`); nil
    /// links give null.
    public subscript<O: ObjectBase, V>(dynamicMember keyPath: KeyPath<O, V>) -> Query<V> where T == O? {
        _appending(keyPath)
    }
}

extension Query {
    /// The constant a Swift value compares as: its stored value, or the link to a managed
    /// object (an unmanaged or embedded object matches no link).
    static func _constant<V: _Persistable>(_ value: V) -> FieldValue {
        if let object = value as? ObjectBase {
            guard !(object is EmbeddedObject), let state = object._strataState else { return .link(.invalid) }
            return .link(state.key)
        }
        return (try? value._strataWrite(nil)) ?? .null
    }

    func _comparison(_ op: QueryOperator, _ rhs: QueryValue, options: QueryStringOptions = []) -> Query<Bool> {
        Query<Bool>(.predicate(.compare(QueryComparison(op: op, lhs: _value, rhs: rhs, options: options))), database: _database)
    }
}

extension Query where T: _Persistable {
    /// Equal to a value.
    public static func == (lhs: Query, rhs: T) -> Query<Bool> { lhs._comparison(.equal, .constant(_constant(rhs))) }
    /// Not equal to a value.
    public static func != (lhs: Query, rhs: T) -> Query<Bool> { lhs._comparison(.notEqual, .constant(_constant(rhs))) }
    /// Equal to another property.
    public static func == (lhs: Query, rhs: Query) -> Query<Bool> { lhs._comparison(.equal, rhs._value) }
    /// Not equal to another property.
    public static func != (lhs: Query, rhs: Query) -> Query<Bool> { lhs._comparison(.notEqual, rhs._value) }

    /// Equal to one of `values`.
    public func `in`<S: Sequence>(_ values: S) -> Query<Bool> where S.Element == T {
        var constants: [FieldValue] = []
        for value in values { constants.append(Query._constant(value)) }
        return _comparison(.equal, .list(constants))
    }
}

extension Query where T: _Persistable & Comparable {
    /// Less than a value.
    public static func < (lhs: Query, rhs: T) -> Query<Bool> { lhs._comparison(.less, .constant(_constant(rhs))) }
    /// At most a value.
    public static func <= (lhs: Query, rhs: T) -> Query<Bool> { lhs._comparison(.lessOrEqual, .constant(_constant(rhs))) }
    /// Greater than a value.
    public static func > (lhs: Query, rhs: T) -> Query<Bool> { lhs._comparison(.greater, .constant(_constant(rhs))) }
    /// At least a value.
    public static func >= (lhs: Query, rhs: T) -> Query<Bool> { lhs._comparison(.greaterOrEqual, .constant(_constant(rhs))) }
    /// Less than another property.
    public static func < (lhs: Query, rhs: Query) -> Query<Bool> { lhs._comparison(.less, rhs._value) }
    /// At most another property.
    public static func <= (lhs: Query, rhs: Query) -> Query<Bool> { lhs._comparison(.lessOrEqual, rhs._value) }
    /// Greater than another property.
    public static func > (lhs: Query, rhs: Query) -> Query<Bool> { lhs._comparison(.greater, rhs._value) }
    /// At least another property.
    public static func >= (lhs: Query, rhs: Query) -> Query<Bool> { lhs._comparison(.greaterOrEqual, rhs._value) }

    /// Within a closed range (`$0.age.contains(1...5)`).
    public func contains(_ range: ClosedRange<T>) -> Query<Bool> {
        _comparison(.between, .list([Query._constant(range.lowerBound), Query._constant(range.upperBound)]))
    }

    /// Within a half-open range (`$0.age.contains(1..<5)`).
    public func contains(_ range: Range<T>) -> Query<Bool> {
        _comparison(.greaterOrEqual, .constant(Query._constant(range.lowerBound)))
            && _comparison(.less, .constant(Query._constant(range.upperBound)))
    }
}

extension Query {
    /// Less than a value, for an optional property (nil is not less than anything).
    public static func < <W: _Persistable & Comparable>(lhs: Query, rhs: W) -> Query<Bool> where T == W? {
        lhs._comparison(.less, .constant(_constant(rhs)))
    }
    /// At most a value, for an optional property.
    public static func <= <W: _Persistable & Comparable>(lhs: Query, rhs: W) -> Query<Bool> where T == W? {
        lhs._comparison(.lessOrEqual, .constant(_constant(rhs)))
    }
    /// Greater than a value, for an optional property (nil is not greater than anything).
    public static func > <W: _Persistable & Comparable>(lhs: Query, rhs: W) -> Query<Bool> where T == W? {
        lhs._comparison(.greater, .constant(_constant(rhs)))
    }
    /// At least a value, for an optional property.
    public static func >= <W: _Persistable & Comparable>(lhs: Query, rhs: W) -> Query<Bool> where T == W? {
        lhs._comparison(.greaterOrEqual, .constant(_constant(rhs)))
    }
}

extension Query where T == Bool {
    /// The predicate this query stands for (a Bool property stands for `property == true`).
    var _node: QueryNode {
        switch _expression {
        case .predicate(let node): return node
        case .value(let value): return .compare(QueryComparison(op: .equal, lhs: value, rhs: .constant(.bool(true))))
        }
    }

    /// Both predicates hold.
    public static func && (lhs: Query, rhs: Query) -> Query { Query(.predicate(.and(lhs._node, rhs._node)), database: lhs._database) }
    /// Either predicate holds.
    public static func || (lhs: Query, rhs: Query) -> Query { Query(.predicate(.or(lhs._node, rhs._node)), database: lhs._database) }
    /// The predicate does not hold.
    public static prefix func ! (query: Query) -> Query { Query(.predicate(.not(query._node)), database: query._database) }
}
