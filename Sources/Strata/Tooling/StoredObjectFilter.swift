import StrataStorage

// `strata inspect --where`: a small predicate over an object's stored fields, for databases
// opened without their model classes (the query engine works on declared schemas, so it cannot
// run here). What it reads, with the query language's tokens (Query/PredicateLexer.swift):
//
//   predicate  := and (("OR" | "||") and)*
//   and        := unary (("AND" | "&&") unary)*
//   unary      := ("NOT" | "!")* ("(" predicate ")" | comparison)
//
// Parentheses and NOTs nest at most `PredicateParser.maxDepth` levels; AND and OR chains are
// flat lists, so neither parsing nor evaluating recurses deeper than that.
//   comparison := property operator literal
//   operator   := "==" | "=" | "!=" | "<>" | "<" | "<=" | ">" | ">="
//               | "BEGINSWITH" | "ENDSWITH" | "CONTAINS"          (String properties)
//   literal    := integer | decimal | "-" number | 'string' | "string" | true | false | nil
//
// `property` is a top-level Bool, integer, Float, Double or String property; `nil` compares
// with optional ones (== and != only). Anything else is `.invalidQuery` naming what and where.

/// A predicate over the stored fields of one class's objects.
///
/// `@_spi(Tooling)`: for the `strata` tool, not API.
@_spi(Tooling) public struct StoredObjectFilter: Sendable {
    indirect enum Node: Sendable {
        case comparison(propertyID: UInt32, empty: FieldValue, operator: String, literal: FieldValue)
        case not(Node)
        /// Every term holds (a chain of ANDs, flat).
        case and([Node])
        /// Some term holds (a chain of ORs, flat).
        case or([Node])
    }

    let root: Node

    /// Parses `predicate` against the properties of `storedClass`.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` for a malformed predicate, an unknown
    ///   property, one of a type it cannot compare, or a literal of the wrong type.
    public init(_ predicate: String, for storedClass: StoredClass) throws {
        var parser = FilterParser(tokens: try PredicateLexer.tokenize(predicate), storedClass: storedClass)
        root = try parser.predicate()
        try parser.expectEnd()
    }

    /// Whether an object with these fields (by property id) matches.
    func matches(_ fields: [UInt32: FieldValue]) -> Bool {
        Self.evaluate(root, fields)
    }

    private static func evaluate(_ node: Node, _ fields: [UInt32: FieldValue]) -> Bool {
        switch node {
        case .not(let inner): return !evaluate(inner, fields)
        case .and(let terms): return terms.allSatisfy { evaluate($0, fields) }
        case .or(let terms): return terms.contains { evaluate($0, fields) }
        case .comparison(let id, let empty, let op, let literal):
            return compare(fields[id] ?? empty, op, literal)
        }
    }

    private static func compare(_ value: FieldValue, _ op: String, _ literal: FieldValue) -> Bool {
        if value.isNull || literal.isNull {
            let same = value.isNull && literal.isNull
            return op == "!=" ? !same : (op == "==" && same)
        }
        switch (value, literal) {
        case (.string(let text), .string(let pattern)):
            switch op {
            case "BEGINSWITH": return text.hasPrefix(pattern)
            case "ENDSWITH": return text.hasSuffix(pattern)
            case "CONTAINS": return pattern.isEmpty || text.contains(pattern)
            default: return order(op, text < pattern, text == pattern)
            }
        case (.bool(let flag), .bool(let other)):
            return op == "==" ? flag == other : flag != other
        case (.int(let number), .int(let other)):
            return order(op, number < other, number == other)
        default:
            guard let number = value.numericValue, let other = literal.numericValue else { return false }
            return order(op, number < other, number == other)
        }
    }

    private static func order(_ op: String, _ less: Bool, _ equal: Bool) -> Bool {
        switch op {
        case "==": equal
        case "!=": !equal
        case "<": less
        case "<=": less || equal
        case ">": !less && !equal
        case ">=": !less
        default: false
        }
    }
}

extension FieldValue {
    /// An int, float or double as a Double.
    var numericValue: Double? {
        switch self {
        case .int(let number): Double(number)
        case .float(let number): Double(number)
        case .double(let number): number
        default: nil
        }
    }
}
