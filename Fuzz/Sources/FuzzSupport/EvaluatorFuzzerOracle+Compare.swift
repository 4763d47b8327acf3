// How the EvaluatorFuzzer's oracle compares two single values (see EvaluatorFuzzerOracle.swift
// for the rules): equality, ordering, the string operators and LIKE, over UTF-8 bytes and
// Unicode scalars.

import Foundation

/// How the oracle compares strings under `[c]`/`[d]` and in BEGINSWITH, ENDSWITH, CONTAINS and
/// LIKE: by bytes and scalars (the rule), or as Swift's `String` does, by canonical equivalence
/// and Characters (what Strata does: KnownIssues, STRING-OPERATORS-CANONICAL).
enum EvalStringRules: Sendable {
    case bytes, canonical
}

extension EvalOracle {
    /// Whether `lhs op rhs` holds for two single values.
    static func compare(
        _ op: EvalOperator, _ lhs: EvalValue, _ rhs: EvalValue, _ options: EvalOptions, rules: EvalStringRules = .bytes
    ) -> Bool {
        switch op {
        case .equal, .notEqual:
            let equal: Bool
            if !options.isEmpty, case .string(let a) = lhs, case .string(let b) = rhs {
                equal = rules == .bytes ? bytes(fold(a, options)) == bytes(fold(b, options)) : fold(a, options) == fold(b, options)
            } else {
                equal = Self.equal(lhs, rhs)
            }
            return op == .equal ? equal : !equal
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            guard let order = order(lhs, rhs) else { return false }
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .beginsWith, .endsWith, .contains, .like:
            guard case .string(let a) = lhs, case .string(let b) = rhs else { return false }
            let text = fold(a, options), pattern = fold(b, options)
            if rules == .canonical {
                switch op {
                case .beginsWith: return text.hasPrefix(pattern)
                case .endsWith: return text.hasSuffix(pattern)
                case .contains: return pattern.isEmpty || text.contains(pattern)
                default: return like(Array(text), Array(pattern))
                }
            }
            switch op {
            case .beginsWith: return bytes(text).starts(with: bytes(pattern))
            case .endsWith: return bytes(text).reversed().starts(with: bytes(pattern).reversed())
            case .contains: return contains(bytes(text), bytes(pattern))
            default: return like(Array(text.unicodeScalars), Array(pattern.unicodeScalars))
            }
        }
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// `[d]` then `[c]`.
    static func fold(_ text: String, _ options: EvalOptions) -> String {
        var folded = text
        if options.diacriticInsensitive { folded = folded.folding(options: .diacriticInsensitive, locale: nil) }
        if options.caseInsensitive { folded = folded.lowercased() }
        return folded
    }

    static func equal(_ lhs: EvalValue, _ rhs: EvalValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.string(let a), .string(let b)): return bytes(a) == bytes(b)
        case (.dog(let a), .dog(let b)), (.person(let a), .person(let b)): return a == b
        default:
            guard let a = lhs.number, let b = rhs.number else { return false }
            return a == b
        }
    }

    /// -1, 0 or 1 for two numbers or two strings; nil when either is null or they do not order.
    static func order(_ lhs: EvalValue, _ rhs: EvalValue) -> Int? {
        if case .string(let a) = lhs, case .string(let b) = rhs {
            let x = bytes(a), y = bytes(b)
            return x == y ? 0 : (x.lexicographicallyPrecedes(y) ? -1 : 1)
        }
        guard let a = lhs.number, let b = rhs.number else { return nil }
        return a < b ? -1 : (a == b ? 0 : 1)
    }

    static func contains(_ text: [UInt8], _ part: [UInt8]) -> Bool {
        if part.isEmpty { return true }
        guard text.count >= part.count else { return false }
        return (0...(text.count - part.count)).contains { text[$0..<($0 + part.count)].elementsEqual(part) }
    }

    /// LIKE over Unicode scalars: `?` one scalar, `*` any run, a backslash makes the next
    /// character literal (a trailing one matches a backslash). By dynamic programming.
    /// (Over Characters for the canonical rules.)
    static func like<Unit: Equatable & ExpressibleByUnicodeScalarLiteral>(_ text: [Unit], _ pattern: [Unit]) -> Bool {
        var elements: [EvalLikeElement<Unit>] = []
        var index = 0
        while index < pattern.count {
            let scalar = pattern[index]
            if scalar == "\\" {
                elements.append(.literal(index + 1 < pattern.count ? pattern[index + 1] : "\\"))
                index += 2
                continue
            }
            elements.append(scalar == "*" ? .any : scalar == "?" ? .one : .literal(scalar))
            index += 1
        }
        // matched[p][t]: elements[p...] match text[t...].
        var matched = Array(repeating: Array(repeating: false, count: text.count + 1), count: elements.count + 1)
        matched[elements.count][text.count] = true
        for p in stride(from: elements.count - 1, through: 0, by: -1) {
            for t in stride(from: text.count, through: 0, by: -1) {
                switch elements[p] {
                case .any: matched[p][t] = matched[p + 1][t] || (t < text.count && matched[p][t + 1])
                case .one: matched[p][t] = t < text.count && matched[p + 1][t + 1]
                case .literal(let scalar): matched[p][t] = t < text.count && text[t] == scalar && matched[p + 1][t + 1]
                }
            }
        }
        return matched[0][0]
    }
}

/// A compiled LIKE pattern element.
enum EvalLikeElement<Unit: Equatable>: Equatable {
    case literal(Unit), one, any
}
