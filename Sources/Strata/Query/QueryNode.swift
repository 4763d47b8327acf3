import Foundation

// The expression tree of a query: what the typed `where { }` and the string parser build, and
// what `QueryEvaluator` runs. A predicate (`QueryNode`) compares value expressions
// (`QueryValue`); a value expression is a constant, a key path from the queried object, or an
// operation over a collection the key path reaches.
//
// Key paths are lists of steps. A step through a list, a set, a map or backlinks makes the path
// many-valued: a comparison then holds for ANY of its values unless it says ALL or NONE, as in
// Realm. A to-one link that is nil gives one null value.

/// A predicate over one object.
indirect enum QueryNode: Sendable {
    case constant(Bool)
    case compare(QueryComparison)
    case and(QueryNode, QueryNode)
    case or(QueryNode, QueryNode)
    case not(QueryNode)
}

/// `lhs op rhs`, with how many of the left side's values must satisfy it.
struct QueryComparison: Sendable {
    var op: QueryOperator
    var lhs: QueryValue
    var rhs: QueryValue
    var quantifier: QueryQuantifier = .any
    var options: QueryStringOptions = []
}

/// The comparison operators. `between` takes a two-element list on the right; `in` (the
/// right side a list or a many-valued path) holds when some right value equals the left one.
enum QueryOperator: Sendable, Equatable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case beginsWith, endsWith, contains, like
    case between

    /// The operator with its operands swapped: `3 < age` is `age > 3`.
    var flipped: QueryOperator {
        switch self {
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return self
        }
    }

    var isOrdering: Bool { [.less, .lessOrEqual, .greater, .greaterOrEqual].contains(self) }
    var isString: Bool { [.beginsWith, .endsWith, .contains, .like].contains(self) }
}

/// How many of a many-valued left side's values must satisfy a comparison.
enum QueryQuantifier: Sendable {
    /// At least one (no values: false). The default, as in Realm.
    case any
    /// Every one (no values: true).
    case all
    /// None (no values: true).
    case none
}

/// `[c]` and `[d]`: string comparisons that ignore case, diacritics, or both.
struct QueryStringOptions: OptionSet, Sendable {
    let rawValue: UInt8
    static let caseInsensitive = QueryStringOptions(rawValue: 1)
    static let diacriticInsensitive = QueryStringOptions(rawValue: 2)
}

/// A value expression: one value or, for a many-valued key path, several.
indirect enum QueryValue: Sendable {
    case constant(FieldValue)
    /// A list of constants (`IN {1, 2}`, `BETWEEN {1, 5}`, `IN %@`).
    case list([FieldValue])
    /// What a key path from the object reaches.
    case path(QueryPath)
    /// `@count`, `@min`… of what `collection` reaches, reading `element` (a path from each
    /// element object, or none for values) of each.
    case aggregate(QueryAggregate, collection: QueryPath, element: QueryPath?)
    /// `SUBQUERY(collection, $x, predicate).@count`: how many elements match.
    case subqueryCount(collection: QueryPath, predicate: QueryNode)
    /// A predicate as a Bool value (`($0.age > 3) == true`).
    case predicate(QueryNode)
}

/// The collection operators.
enum QueryAggregate: Sendable {
    /// The number of values (`@count`, `@size`; of a String or Data: its length in bytes).
    case count
    case min, max, sum, average
}

/// A key path from an object: the steps, and whether any makes it many-valued.
struct QueryPath: Sendable {
    var steps: [QueryStep]

    init(_ steps: [QueryStep] = []) { self.steps = steps }

    /// Whether the path can reach more (or fewer) than one value.
    var isMultiple: Bool { steps.contains { $0.isMultiple } }

    func appending(_ step: QueryStep) -> QueryPath { QueryPath(steps + [step]) }
    func appending(_ path: QueryPath) -> QueryPath { QueryPath(steps + path.steps) }
}

extension QueryNode {
    /// Calls `body` with the index of every property of the queried object the predicate reads
    /// (the first step of each key path).
    func forEachProperty(_ body: (Int) -> Void) {
        switch self {
        case .constant: break
        case .compare(let comparison):
            comparison.lhs.forEachProperty(body)
            comparison.rhs.forEachProperty(body)
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            lhs.forEachProperty(body)
            rhs.forEachProperty(body)
        case .not(let operand): operand.forEachProperty(body)
        }
    }

    /// Whether the predicate reads backlinks of the queried object (so it needs the object's
    /// key, not only its fields).
    var readsBacklinks: Bool {
        switch self {
        case .constant: return false
        case .compare(let comparison): return comparison.lhs.startsWithBacklinks || comparison.rhs.startsWithBacklinks
        case .and(let lhs, let rhs), .or(let lhs, let rhs): return lhs.readsBacklinks || rhs.readsBacklinks
        case .not(let operand): return operand.readsBacklinks
        }
    }
}

extension QueryValue {
    func forEachProperty(_ body: (Int) -> Void) {
        switch self {
        case .constant, .list: break
        case .path(let path), .aggregate(_, let path, _), .subqueryCount(let path, _): path.forEachProperty(body)
        case .predicate(let node): node.forEachProperty(body)
        }
    }

    var startsWithBacklinks: Bool {
        switch self {
        case .constant, .list: return false
        case .path(let path), .aggregate(_, let path, _), .subqueryCount(let path, _):
            if case .backlinks = path.steps.first { return true }
            return false
        case .predicate(let node): return node.readsBacklinks
        }
    }
}

extension QueryPath {
    func forEachProperty(_ body: (Int) -> Void) {
        if case .property(let index, _, _) = steps.first { body(index) }
    }
}
