import Foundation

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
            // query must agree with them.
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
