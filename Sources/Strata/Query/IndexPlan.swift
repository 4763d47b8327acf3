import StrataStorage

/// How a query finds its candidates without a pass over the class: from a term of its
/// predicate that every match satisfies (the predicate itself, or a conjunct of a top-level
/// `&&`). The query still tests each candidate with its whole predicate, so a plan may find
/// more candidates than matches, never fewer.
enum IndexPlan {
    /// `key == constant` or `key IN {…}` on the primary key: the objects stored under these
    /// values' keys.
    case primaryKeys([FieldValue])
    /// Equality or `IN` on an indexed property: its entries of these values.
    case entries([IndexKeyRange])
    /// A range (`<`, `<=`, `>`, `>=`, `BETWEEN`, a lower and an upper bound joined by `&&`) on
    /// an indexed property: its entries between the bounds, when they are few (see
    /// `rangeLimit(classCount:)`).
    case range(IndexKeyRange)

    /// The most of a class's objects a range plan reads through the index: one in eight. Each
    /// candidate costs a key lookup and a record read (about 1.2 µs each, 1M objects), a pass
    /// over the class's columns about 0.25 µs an object, or 0.02 µs when they are cached, so a
    /// wider range is left to the columns or a scan.
    static let selectiveShare = 8
    /// A range of this many candidates or fewer reads the index whatever the class's size:
    /// the difference is too small to matter, and small classes (tests, fuzzers) keep the
    /// index path in use.
    static let alwaysSelective = 64

    /// The most candidates a range plan reads through the index in a class of `count` objects.
    static func rangeLimit(classCount count: Int) -> Int {
        max(count / selectiveShare, alwaysSelective)
    }

    /// The plan for `predicate` over `schema`'s objects; nil when every object must be tested.
    /// An equality (on the primary key, then on an indexed property) wins over a range.
    static func make(for predicate: QueryNode, schema: ObjectSchema) -> IndexPlan? {
        let terms = conjuncts(of: predicate)
        for term in terms {
            if let (property, values) = equalityTerm(term, schema: schema) {
                if property.isPrimaryKey { return .primaryKeys(values) }
                return .entries(IndexBounds.equal(values, schema: schema, property: property))
            }
        }
        var boundsByProperty: [Int: IndexBounds] = [:]
        var order: [Int] = []
        for case .compare(let comparison) in terms {
            guard let index = indexedOperand(comparison, schema: schema) else { continue }
            if boundsByProperty[index] == nil { order.append(index) }
            boundsByProperty[index, default: IndexBounds()].narrow(by: comparison, property: schema.properties[index])
        }
        let usable = order.filter { boundsByProperty[$0]!.isBounded }
        guard let chosen = usable.first(where: { boundsByProperty[$0]!.isClosed }) ?? usable.first else { return nil }
        return .range(boundsByProperty[chosen]!.keyRange(schema: schema, property: schema.properties[chosen]))
    }

    /// The terms every match satisfies: the conjuncts of a top-level `&&`, or the predicate.
    private static func conjuncts(of node: QueryNode) -> [QueryNode] {
        if case .and(let lhs, let rhs) = node { return conjuncts(of: lhs) + conjuncts(of: rhs) }
        return [node]
    }

    /// The property a comparison tests against constants, when it is indexed (with a usable
    /// index) and the comparison is a plain one (ANY, no string options).
    private static func indexedOperand(_ comparison: QueryComparison, schema: ObjectSchema) -> Int? {
        guard comparison.quantifier == .any, comparison.options.isEmpty,
              let index = ColumnPredicate.property(of: comparison.lhs) else { return nil }
        let property = schema.properties[index]
        return property.isIndexed && !property.isPrimaryKey && property.indexIsUsable ? index : nil
    }

    /// A `property == constant` or `property IN {…}` term on the primary key or an indexed
    /// property, with its values; nil for any other term.
    static func equalityTerm(_ node: QueryNode, schema: ObjectSchema) -> (PropertySchema, [FieldValue])? {
        guard case .compare(let comparison) = node, comparison.op == .equal, comparison.quantifier == .any,
              comparison.options.isEmpty, let index = ColumnPredicate.property(of: comparison.lhs) else { return nil }
        let values: [FieldValue]
        switch comparison.rhs {
        case .constant(let value): values = [value]
        case .list(let list): values = list
        default: return nil
        }
        let property = schema.properties[index]
        guard property.isPrimaryKey || (property.isIndexed && property.indexIsUsable) else { return nil }
        // The index and the keys hold stored values; a constant of another kind (a Double
        // against an Int property) compares numerically: it is a range (`IndexBounds`) or a scan.
        // A mixed property's entries hold every kind (`IndexBounds.equal`).
        guard property.type.type == .any || values.allSatisfy({ $0.isStoredKind(of: property.type) }) else { return nil }
        return (property, values)
    }
}
