import StrataStorage

/// The bounds a query's terms put on one indexed property, and the range of its index entries
/// they select (`IndexPlan`).
///
/// Ordered values are monotone in `FieldOrder` (IndexKeyEncoding.swift), so the values between
/// two bounds have their entries between the bounds' entries. A bound is only ever widened:
/// an exclusive bound whose ordered value also stands for other values (a cut string) keeps
/// that value's entries, a Double against an Int property becomes the integers around it, and
/// the query's predicate removes what does not match.
struct IndexBounds {
    struct Bound {
        var value: FieldValue
        var inclusive: Bool
    }

    /// The first lower and upper bound the terms gave (later ones are left to the predicate).
    private(set) var lower: Bound?
    private(set) var upper: Bound?

    var isBounded: Bool { lower != nil || upper != nil }
    var isClosed: Bool { lower != nil && upper != nil }

    /// Takes the bounds `comparison` (on this property, against constants) gives, if any.
    mutating func narrow(by comparison: QueryComparison, property: PropertySchema) {
        switch (comparison.op, comparison.rhs) {
        case (.greater, .constant(let constant)), (.greaterOrEqual, .constant(let constant)):
            bound(below: constant, inclusive: comparison.op == .greaterOrEqual, property)
        case (.less, .constant(let constant)), (.lessOrEqual, .constant(let constant)):
            bound(above: constant, inclusive: comparison.op == .lessOrEqual, property)
        case (.between, .list(let pair)) where pair.count == 2:
            bound(below: pair[0], inclusive: true, property)
            bound(above: pair[1], inclusive: true, property)
        case (.equal, .constant(let constant)):
            // A numeric constant of another kind (the stored kind is `IndexPlan.equalityTerm`'s).
            bound(below: constant, inclusive: true, property)
            bound(above: constant, inclusive: true, property)
        default:
            break
        }
    }

    private mutating func bound(below constant: FieldValue, inclusive: Bool, _ property: PropertySchema) {
        guard lower == nil, let values = Self.orderedValues(of: constant, for: property) else { return }
        lower = Bound(value: values.low, inclusive: inclusive || values.widened)
    }

    private mutating func bound(above constant: FieldValue, inclusive: Bool, _ property: PropertySchema) {
        guard upper == nil, let values = Self.orderedValues(of: constant, for: property) else { return }
        upper = Bound(value: values.high, inclusive: inclusive || values.widened)
    }

    /// The stored values to bound a range by for `constant`: itself when it is of the
    /// property's kind; for a Float or Double against an Int property, the integers at or
    /// around it (`widened`). Nil when no range of entries holds every value that compares to
    /// it as a bound: null (never less or greater than anything), a NaN (greater than every
    /// value, and every value greater than it), another kind, a Double beyond ±2⁵³.
    static func orderedValues(of constant: FieldValue, for property: PropertySchema) -> (low: FieldValue, high: FieldValue, widened: Bool)? {
        if constant.isNull { return nil }
        if property.type.type == .any { return mixedOrderedValue(of: constant) }
        if constant.isStoredKind(of: property.type) {
            if case .date(let seconds) = constant, seconds.isNaN { return nil }
            return (constant, constant, false)
        }
        guard FieldValue.int(0).isStoredKind(of: property.type) else { return nil }
        let number: Double
        switch constant {
        case .double(let value): number = value
        case .float(let value): number = Double(value)
        default: return nil
        }
        // Below 2⁵³ every integer is a Double, so `Double(a) op number` and `a op number` agree
        // for every Int64 `a`; the integers around `number` bound it.
        guard !number.isNaN, abs(number) < 0x1p53 else { return nil }
        return (.int(Int64(number.rounded(.down))), .int(Int64(number.rounded(.up))), true)
    }

    /// The value to bound a mixed property's range by for `constant`: a number as the Double
    /// its entries hold, its group kept whole (`widened`: integers beyond 2⁵³ that round to it
    /// may lie on either side); nil for NaN and for kinds with no order in the index.
    private static func mixedOrderedValue(of constant: FieldValue) -> (low: FieldValue, high: FieldValue, widened: Bool)? {
        let value = IndexKeyEncoding.mixedValue(constant)
        switch value {
        case .double(let number) where !number.isNaN: return (value, value, true)
        case .date(let seconds) where !seconds.isNaN: return (value, value, false)
        case .bool, .string, .uuid, .objectId: return (value, value, false)
        default: return nil
        }
    }

    /// The entries of `property` between the bounds (nulls excluded: they are never less or
    /// greater than anything).
    func keyRange(schema: ObjectSchema, property: PropertySchema) -> IndexKeyRange {
        let prefix = IndexKeyEncoding.propertyPrefix(classID: schema.classID, propertyID: property.propertyID)
        let start: [UInt8]
        if let lower {
            let group = prefix + Self.ordered(lower.value)
            let skipsGroup = !lower.inclusive && IndexKeyEncoding.isExact(lower.value)
            start = skipsGroup ? IndexKeyEncoding.prefixSuccessor(group) ?? group : group
        } else {
            start = prefix + [ObjectFormat.Tag.null.rawValue + 1]
        }
        let end: [UInt8]?
        if let upper {
            let group = prefix + Self.ordered(upper.value)
            let endsBeforeGroup = !upper.inclusive && IndexKeyEncoding.isExact(upper.value)
            end = endsBeforeGroup ? group : IndexKeyEncoding.prefixSuccessor(group)
        } else {
            end = IndexKeyEncoding.prefixSuccessor(prefix)
        }
        return IndexKeyRange(start: start, end: end)
    }

    /// The entries of `property` holding one of `values`, one range per distinct value (a
    /// mixed property's 3 and 3.0 are one: `PropertySchema.indexedValue`). A mixed list or map
    /// holding a value is not that value in a query, so its entries (`IndexKeyEncoding.otherTag`)
    /// are not among them.
    static func equal(_ values: [FieldValue], schema: ObjectSchema, property: PropertySchema) -> [IndexKeyRange] {
        let groups = values.map { IndexKeyEncoding.valuePrefix(classID: schema.classID, propertyID: property.propertyID, value: property.indexedValue($0)) }
        var seen = Set<[UInt8]>()
        return groups.filter { seen.insert($0).inserted }.map { group in
            IndexKeyRange(start: group, end: IndexKeyEncoding.prefixSuccessor(group))
        }
    }

    private static func ordered(_ value: FieldValue) -> [UInt8] {
        var bytes: [UInt8] = []
        IndexKeyEncoding.appendValue(value, to: &bytes)
        return bytes
    }
}
