// Writes an EvaluatorFuzzer predicate (EvaluatorFuzzerPredicate.swift) as the text and `%@`/`%K`
// arguments `filter(checking:_:)` takes, in the spellings the nodes' `style` bits choose:
//
//   comparison style   bits 1–2 operator spelling (`==`/`=`, `!=`/`<>`, `<=`/`=<`, `>=`/`=>`)
//                      bit 3 keywords in lower case; bit 4 the left key path as `%K`; bit 5
//                      as `#name` (a plain path); bits 6–7 the options' spelling
//   constant style     bit 0 `%@` (else a literal); bits 1–2 the literal's quote and escapes, or
//                      the argument's Swift type (Int, Int64, Int32, Int8; Double, Float;
//                      String, Substring; nil as Int?, NSNull, nil as String?)

import Foundation

/// String and number literals as the predicate lexer reads them.
enum EvalLiteral {
    /// `text` for messages: quoted, every scalar outside printable ASCII as `\u{…}`, so that
    /// "Zo\u{E9}" and "Zoe\u{301}" look different.
    static func shown(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"", "\\": out += "\\" + String(scalar)
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return out + "\""
    }

    /// `text` quoted: `style` bit 0 picks `'` or `"`, bit 1 writes non-ASCII scalars as `\uXXXX`
    /// (every pool scalar is in the BMP). The quote and backslashes are escaped.
    static func quoted(_ text: String, style: Int) -> String {
        let quote: Character = style & 1 == 0 ? "'" : "\""
        var out = String(quote)
        for scalar in text.unicodeScalars {
            if scalar == "\\" || Character(scalar) == quote {
                out += "\\" + String(scalar)
            } else if style & 2 != 0, !scalar.isASCII {
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        out.append(quote)
        return out
    }
}

/// Renders one predicate; `object` gives the managed object a link constant stands for.
struct EvalRenderer {
    let object: (EvalValue) -> Any
    private(set) var arguments: [Any] = []
    /// How each argument is shown in messages.
    private(set) var shown: [String] = []

    init(object: @escaping (EvalValue) -> Any) { self.object = object }

    mutating func argument(_ value: Any, _ description: String) -> String {
        arguments.append(value)
        shown.append(description)
        return "%@"
    }

    mutating func predicate(_ node: EvalPredicate, prefix: String = "") -> String {
        switch node {
        case .constant(let value, let style):
            let word = value ? "TRUEPREDICATE" : "FALSEPREDICATE"
            return style & 1 == 0 ? word : word.lowercased()
        case .not(let inner, let style):
            return ["NOT ", "!", "not "][style % 3] + grouped(inner, prefix: prefix)
        case .and(let terms, let style):
            return terms.map { grouped($0, prefix: prefix) }.joined(separator: [" AND ", " && ", " and "][style % 3])
        case .or(let terms, let style):
            return terms.map { grouped($0, prefix: prefix) }.joined(separator: [" OR ", " || ", " or "][style % 3])
        case .compare(let comparison):
            return self.comparison(comparison, prefix: prefix)
        }
    }

    /// A term of AND, OR or NOT: parenthesized unless it is a comparison or a constant.
    private mutating func grouped(_ node: EvalPredicate, prefix: String) -> String {
        switch node {
        case .compare, .constant: return predicate(node, prefix: prefix)
        default: return "(" + predicate(node, prefix: prefix) + ")"
        }
    }

    private func keyword(_ word: String, _ style: Int) -> String { style & 8 == 0 ? word : word.lowercased() }

    private func spelling(_ op: EvalOperator, _ style: Int) -> String {
        let variant = (style >> 1) & 1
        switch op {
        case .equal: return ["==", "="][variant]
        case .notEqual: return ["!=", "<>"][variant]
        case .less: return "<"
        case .lessOrEqual: return ["<=", "=<"][variant]
        case .greater: return ">"
        case .greaterOrEqual: return [">=", "=>"][variant]
        case .beginsWith: return keyword("BEGINSWITH", style)
        case .endsWith: return keyword("ENDSWITH", style)
        case .contains: return keyword("CONTAINS", style)
        case .like: return keyword("LIKE", style)
        }
    }

    private func options(_ options: EvalOptions, _ style: Int) -> String {
        switch (options.caseInsensitive, options.diacriticInsensitive) {
        case (false, false): return ""
        case (true, false): return style & 64 == 0 ? "[c]" : "[C]"
        case (false, true): return style & 64 == 0 ? "[d]" : "[D]"
        case (true, true): return style & 128 == 0 ? "[cd]" : "[dc]"
        }
    }

    /// Arguments are taken in the order the text uses them, so each part is rendered in order.
    private mutating func comparison(_ comparison: EvalComparison, prefix: String) -> String {
        let style = comparison.style
        switch comparison.test {
        case .constant(let op, let opts, let value, let flipped) where flipped:
            let constant = written(value)
            return constant + " " + spelling(op.flipped, style) + options(opts, style) + " " + left(comparison, prefix: prefix)
        case .constant(let op, let opts, let value, _):
            let lhs = left(comparison, prefix: prefix)
            return lhs + " " + spelling(op, style) + options(opts, style) + " " + written(value)
        case .operand(let op, let opts, let rhs):
            let lhs = left(comparison, prefix: prefix)
            return lhs + " " + spelling(op, style) + options(opts, style) + " " + operand(rhs, prefix: prefix, style: 0)
        case .list(let opts, let values, let asArgument):
            let lhs = left(comparison, prefix: prefix)
            return lhs + " " + keyword("IN", style) + options(opts, style) + " " + list(values, asArgument: asArgument)
        case .between(let lower, let upper, let asArgument):
            let lhs = left(comparison, prefix: prefix)
            return lhs + " " + keyword("BETWEEN", style) + " " + list([lower, upper], asArgument: asArgument)
        case .inCollection(let opts, let collection):
            let lhs = left(comparison, prefix: prefix)
            return lhs + " " + keyword("IN", style) + options(opts, style) + " " + collection.text(prefix: prefix)
        case .member(let opts, let value):
            let constant = written(value)
            return constant + " " + keyword("IN", style) + options(opts, style) + " " + left(comparison, prefix: prefix)
        }
    }

    /// The quantifier, if any, and the left operand.
    private mutating func left(_ comparison: EvalComparison, prefix: String) -> String {
        let lhs = operand(comparison.lhs, prefix: prefix, style: comparison.style)
        guard let quantifier = comparison.quantifier else { return lhs }
        let word = ["ANY", "SOME", "ALL", "NONE"][[EvalQuantifier.anyOf, .someOf, .allOf, .noneOf].firstIndex(of: quantifier)!]
        return keyword(word, comparison.style) + " " + lhs
    }

    private mutating func list(_ values: [EvalWritten], asArgument: Bool) -> String {
        if asArgument {
            let elements = values.map { swiftValue($0) }
            return argument(elements.map(\.0), "[" + elements.map(\.1).joined(separator: ", ") + "]")
        }
        return "{" + values.map { written($0) }.joined(separator: ", ") + "}"
    }

    mutating func operand(_ operand: EvalOperand, prefix: String, style: Int) -> String {
        let text: String
        switch operand {
        case .path(let path):
            text = path.text(prefix: prefix)
            if !path.hasMapKey, style & 32 != 0, prefix.isEmpty, case .property = path.steps.first { return "#" + text }
        case .count(let path, let size):
            text = path.text(prefix: prefix) + (size ? ".@size" : ".@count")
        case .aggregate(let aggregate, let collection, let element):
            let name = ["@min", "@max", "@sum", "@avg"][[.min, .max, .sum, .avg].firstIndex(of: aggregate)!]
            text = collection.text(prefix: prefix) + "." + name + (element.map { "." + $0.text() } ?? "")
        case .stringSize(let path):
            text = path.text(prefix: prefix) + ".@size"
        case .subquery(let collection, let variable, let inner):
            let body = predicate(inner, prefix: variable + ".")
            return keyword("SUBQUERY", style) + "(" + collection.text(prefix: prefix) + ", " + variable + ", " + body + ").@count"
        }
        // %K takes a key path without a map key (`['k']` is written after an identifier only).
        guard style & 16 != 0, !text.contains("[") else { return text }
        _ = argument(text, EvalLiteral.shown(text) + " for %K")
        return "%K"
    }

    /// A constant as a literal or a `%@` argument.
    mutating func written(_ value: EvalWritten) -> String {
        if value.isArgument {
            let (swift, description) = swiftValue(value)
            return argument(swift, description)
        }
        let variant = value.style >> 1
        switch value.value {
        case .null: return ["nil", "NULL", "nil", "null"][variant % 4]
        case .int(let number): return String(number)
        case .double(let number): return "\(number)"
        case .string(let text): return EvalLiteral.quoted(text, style: variant)
        case .dog, .person, .embedded: fatalError("EvaluatorFuzzer: an object is always an argument")
        }
    }

    /// The Swift value a `%@` argument passes, and how messages show it.
    private func swiftValue(_ value: EvalWritten) -> (Any, String) {
        let variant = (value.style >> 1) % 4
        switch value.value {
        case .null:
            return [(nil as Int? as Any, "nil as Int?"), (NSNull(), "NSNull()"), (nil as String? as Any, "nil as String?"),
                    (nil as Int? as Any, "nil as Int?")][variant]
        case .int(let number):
            return [(number, "\(number)"), (Int64(number), "Int64(\(number))"), (Int32(number), "Int32(\(number))"),
                    (Int8(number), "Int8(\(number))")][variant]
        case .double(let number):
            return variant & 1 == 0 ? (number, "\(number)") : (Float(number), "Float(\(number))")
        case .string(let text):
            return variant & 1 == 0 ? (text, EvalLiteral.shown(text)) : (Substring(text), "Substring(\(EvalLiteral.shown(text)))")
        case .dog(let index):
            return (object(value.value), "dog \(index)")
        case .person(let index):
            return (object(value.value), "person \(index)")
        case .embedded:
            fatalError("EvaluatorFuzzer: an embedded object is never a constant")
        }
    }
}
