import StrataStorage

/// What a column predicate reads: properties of the queried class, and properties of the
/// classes its to-one links lead to (`dog.age > 3`).
struct ColumnNeeds {
    var own: Set<Int> = []
    /// By class id: the linked class and the properties read of it.
    var linked: [UInt32: (schema: ObjectSchema, properties: Set<Int>)] = [:]
    /// The link properties followed, each with the id of the class it links to.
    var links: [Int: UInt32] = [:]

    mutating func formUnion(_ other: ColumnNeeds) {
        own.formUnion(other.own)
        links.merge(other.links) { first, _ in first }
        for (classID, need) in other.linked { linked[classID, default: (need.schema, [])].properties.formUnion(need.properties) }
    }
}

/// A value a column predicate reads for each object: a property of the object, or a property
/// of the object a to-one link of it leads to (null when the link is nil or leads nowhere).
enum ColumnReference {
    case own(Int)
    case linked(link: Int, target: ObjectSchema, property: Int)

    init?(_ value: QueryValue) {
        guard case .path(let path) = value else { return nil }
        switch path.steps.count {
        case 1:
            guard case .property(let index, _, false) = path.steps[0] else { return nil }
            self = .own(index)
        case 2:
            guard case .property(let link, let target?, false) = path.steps[0], !target.isEmbedded,
                  case .property(let index, _, false) = path.steps[1] else { return nil }
            self = .linked(link: link, target: target, property: index)
        default:
            return nil
        }
    }

    var needs: ColumnNeeds {
        switch self {
        case .own(let index): return ColumnNeeds(own: [index])
        case .linked(let link, let target, let property):
            return ColumnNeeds(own: [link], linked: [target.classID: (target, [property])], links: [link: target.classID])
        }
    }

    /// For each object of `columns`, whether its value satisfies `comparison` (whose left side
    /// is this reference); `linked` holds the linked classes' columns, and `columns` the rows its
    /// links lead to in them. A linked value is tested once per linked object, not once per link
    /// to it.
    func test(_ comparison: QueryComparison, _ columns: ClassColumns, linked: [UInt32: ClassColumns]) -> [Bool] {
        let test = QueryEvaluator.singleValueTest(comparison)
        let integers = IntegerColumnTest(comparison)
        func testColumn(_ values: [FieldValue]) -> [Bool] {
            integers?.test(values, general: test) ?? values.map(test)
        }
        switch self {
        case .own(let index): return testColumn(columns.column(index))
        case .linked(let link, let target, let property):
            guard let targetColumns = linked[target.classID], let rows = columns.linkRows[link]?.rows else { return [] }
            let passes = testColumn(targetColumns.column(property))
            let nullPasses = test(.null)
            return rows.map { $0 < 0 ? nullPasses : passes[$0] }
        }
    }
}

/// Predicates columns answer: `and`, `or` and `not` of comparisons between a property of the
/// queried class (or of an object a to-one link leads to) and constants (`age > 3`,
/// `name IN {…}`, `dog.age BETWEEN {1, 5}`).
enum ColumnPredicate {
    /// What `node` reads, or nil when it reads anything else (collections, backlinks, two
    /// properties compared with each other…).
    static func needs(of node: QueryNode) -> ColumnNeeds? {
        switch node {
        case .constant: return ColumnNeeds()
        case .and(let lhs, let rhs), .or(let lhs, let rhs):
            guard var left = needs(of: lhs), let right = needs(of: rhs) else { return nil }
            left.formUnion(right)
            return left
        case .not(let operand): return needs(of: operand)
        case .compare(let comparison):
            guard let reference = ColumnReference(comparison.lhs) else { return nil }
            switch comparison.rhs {
            case .constant, .list: return reference.needs
            default: return nil
            }
        }
    }

    /// The property index a value expression is, when it is one of the queried class.
    static func property(of value: QueryValue) -> Int? {
        guard case .own(let index)? = ColumnReference(value) else { return nil }
        return index
    }

    /// For each row of `columns`, whether it satisfies `node`. REQUIRES: `needs(of: node)` is
    /// not nil and its columns are decoded (the linked classes' in `linked`, keys indexed).
    static func evaluate(_ node: QueryNode, _ columns: ClassColumns, linked: [UInt32: ClassColumns]) -> [Bool] {
        switch node {
        case .constant(let value): return [Bool](repeating: value, count: columns.entries.count)
        case .and(let lhs, let rhs):
            var result = evaluate(lhs, columns, linked: linked)
            let right = evaluate(rhs, columns, linked: linked)
            for position in result.indices where result[position] { result[position] = right[position] }
            return result
        case .or(let lhs, let rhs):
            var result = evaluate(lhs, columns, linked: linked)
            let right = evaluate(rhs, columns, linked: linked)
            for position in result.indices where !result[position] { result[position] = right[position] }
            return result
        case .not(let operand):
            return evaluate(operand, columns, linked: linked).map { !$0 }
        case .compare(let comparison):
            guard let reference = ColumnReference(comparison.lhs) else { return [] }
            return reference.test(comparison, columns, linked: linked)
        }
    }
}
