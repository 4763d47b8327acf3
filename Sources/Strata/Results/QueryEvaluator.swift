import Foundation

// Evaluates a query's expression tree against an object's fields, and orders field values for
// sorting. Pure functions; safe from any thread.

enum QueryEvaluator {
    static func matches(_ node: QueryNode, _ fields: [FieldValue]) -> Bool {
        switch node {
        case .and(let lhs, let rhs): return matches(lhs, fields) && matches(rhs, fields)
        case .or(let lhs, let rhs): return matches(lhs, fields) || matches(rhs, fields)
        case .not(let inner): return !matches(inner, fields)
        case .property, .constant:
            if case .bool(true) = value(node, fields) { return true }
            return false
        case .compare(let op, let lhs, let rhs):
            let left = value(lhs, fields)
            let right = value(rhs, fields)
            switch op {
            case .equal: return FieldOrder.equal(left, right)
            case .notEqual: return !FieldOrder.equal(left, right)
            case .less, .lessOrEqual, .greater, .greaterOrEqual:
                // As in Realm, null is not less or greater than anything.
                if left.isNull || right.isNull { return false }
                guard let order = FieldOrder.compare(left, right) else { return false }
                switch op {
                case .less: return order < 0
                case .lessOrEqual: return order <= 0
                case .greater: return order > 0
                default: return order >= 0
                }
            }
        case .string(let op, let lhs, let rhs, let caseInsensitive):
            guard case .string(var text) = value(lhs, fields), case .string(var pattern) = value(rhs, fields) else {
                return false
            }
            if caseInsensitive {
                text = text.lowercased()
                pattern = pattern.lowercased()
            }
            switch op {
            case .beginsWith: return text.hasPrefix(pattern)
            case .endsWith: return text.hasSuffix(pattern)
            case .contains: return pattern.isEmpty || text.contains(pattern)
            case .like: return LikePattern.matches(text, pattern, caseInsensitive: false)  // lowercased above when [c]
            }
        }
    }

    static func value(_ node: QueryNode, _ fields: [FieldValue]) -> FieldValue {
        switch node {
        case .property(let path): return path.count == 1 ? fields[path[0]] : .null
        case .constant(let value): return value
        default: return .bool(matches(node, fields))
        }
    }
}

/// The order of stored values: numbers compare across integer and floating types, null sorts
/// first, strings by Unicode scalars (as Realm's default, case-sensitive).
enum FieldOrder {
    /// Values of one type are equal when their stored bytes are (`FieldValue.==`: no Unicode
    /// normalization, -0.0 is not 0.0, 1.0 is not 1.00); numbers of different types compare by
    /// value (an Int property equals 3.0).
    static func equal(_ lhs: FieldValue, _ rhs: FieldValue) -> Bool {
        if lhs == rhs { return true }
        switch (lhs, rhs) {
        case (.int, .float), (.int, .double), (.float, .int), (.double, .int), (.float, .double), (.double, .float):
            return compare(lhs, rhs) == 0
        default:
            return false
        }
    }

    /// -1, 0 or 1; nil when the values are of kinds that do not compare.
    static func compare(_ lhs: FieldValue, _ rhs: FieldValue) -> Int? {
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.int(let a), .int(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.bool(let a), .bool(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.string(let a), .string(let b)):
            // By UTF-8 bytes (the same order as Unicode scalars), for equality too: Swift's `==`
            // treats "é" and "e\u{301}" as equal, but keys and indexes store bytes, so a
            // query must agree with them (found by the predicate fuzzer).
            if a.utf8.elementsEqual(b.utf8) { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        case (.date(let a), .date(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.decimal(let a), .decimal(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.objectId(let a), .objectId(let b)): return a < b ? -1 : (a == b ? 0 : 1)
        case (.uuid(let a), .uuid(let b)):
            return a.uuidString < b.uuidString ? -1 : (a == b ? 0 : 1)
        case (.data(let a), .data(let b)):
            return a.lexicographicallyPrecedes(b) ? -1 : (a == b ? 0 : 1)
        default:
            guard let a = double(lhs), let b = double(rhs) else { return nil }
            return a < b ? -1 : (a == b ? 0 : 1)
        }
    }

    private static func double(_ value: FieldValue) -> Double? {
        switch value {
        case .int(let number): return Double(number)
        case .float(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }
}
