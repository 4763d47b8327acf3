/// A comparison of a column with an integer constant (`age > 50`, `age == 3`), tested on the
/// column's integers without going through `FieldOrder`: the common predicate of a count or a
/// filter, at a few nanoseconds a value. Values of other kinds (null, a mixed property's
/// double…) take the general test.
struct IntegerColumnTest {
    let op: QueryOperator
    let constant: Int64

    /// The fast form of `comparison`, when it is a plain ordering or equality (ANY, no string
    /// options) against one integer constant; nil otherwise.
    init?(_ comparison: QueryComparison) {
        guard comparison.quantifier == .any, comparison.options.isEmpty,
              case .constant(.int(let constant)) = comparison.rhs,
              comparison.op == .equal || comparison.op == .notEqual || comparison.op.isOrdering
        else { return nil }
        self.op = comparison.op
        self.constant = constant
    }

    /// Whether each of `values` passes; `general` tests a value that is not an integer.
    func test(_ values: [FieldValue], general: (FieldValue) -> Bool) -> [Bool] {
        let constant = self.constant
        return values.map { value in
            guard case .int(let number) = value else { return general(value) }
            switch op {
            case .equal: return number == constant
            case .notEqual: return number != constant
            case .less: return number < constant
            case .lessOrEqual: return number <= constant
            case .greater: return number > constant
            default: return number >= constant
            }
        }
    }
}
