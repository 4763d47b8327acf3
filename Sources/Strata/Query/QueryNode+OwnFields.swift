extension QueryNode {
    /// Whether the predicate reads nothing but the queried object's own fields — no step
    /// through a link, an embedded object, backlinks or a map, no subquery and no aggregate over
    /// linked objects — so whether an object matches changes only when its own record does.
    var readsOnlyOwnFields: Bool {
        switch self {
        case .constant: return true
        case .compare(let comparison): return comparison.lhs.readsOnlyOwnFields && comparison.rhs.readsOnlyOwnFields
        case .and(let lhs, let rhs), .or(let lhs, let rhs): return lhs.readsOnlyOwnFields && rhs.readsOnlyOwnFields
        case .not(let operand): return operand.readsOnlyOwnFields
        }
    }
}

extension QueryValue {
    /// See `QueryNode.readsOnlyOwnFields`.
    var readsOnlyOwnFields: Bool {
        switch self {
        case .constant, .list: return true
        case .path(let path): return path.isOwnField
        case .aggregate(_, let collection, let element): return collection.isOwnField && element == nil
        case .subqueryCount: return false
        case .predicate(let node): return node.readsOnlyOwnFields
        }
    }
}

extension QueryPath {
    /// Whether the path is one of the object's own properties (a link or a collection read as
    /// the keys it holds, not followed).
    var isOwnField: Bool {
        guard steps.count == 1, case .property = steps[0] else { return false }
        return true
    }
}
