import Foundation
import StrataStorage

// Operands of predicate comparisons: properties (by name, `#name` or `%K`), literals and `%@`
// arguments, converted to FieldValues.

extension PredicateParser {
    /// One side of a comparison.
    struct Operand {
        enum Value {
            /// A key path, an aggregate or a subquery count, and what its values are.
            case expression(QueryValue, OperandKind)
            /// `numberText` is a base-10 number literal as written (for Decimal128 properties);
            /// `linkClass` the class of a managed object argument.
            case constant(FieldValue, numberText: String? = nil, linkClass: String? = nil)
        }

        let value: Value
        /// The property name, or the source text.
        let text: String
        /// How messages name it: `'age'`, `'3'`, `argument 2`.
        let quoted: String
        let column: Int

        var queryValue: QueryValue {
            switch value {
            case .expression(let expression, _): return expression
            case .constant(let field, _, _): return .constant(field)
            }
        }

        var kind: OperandKind? {
            if case .expression(_, let kind) = value { return kind }
            return nil
        }

        var isBoolProperty: Bool { kind?.type == .bool }
    }

    /// What the values of a key path or an aggregate are: their type (a collection's element
    /// type), and whether there may be more than one.
    struct OperandKind {
        var type: PropertyType
        var isMultiple: Bool
        var description: String { isMultiple ? "many \(type)" : "\(type)" }
    }

    /// Reserved words that are not operands; using one where a value belongs is an error.
    static let reservedWords: Set<String> = [
        "AND", "OR", "NOT", "IN", "BETWEEN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE",
        "TRUEPREDICATE", "FALSEPREDICATE", "SUBQUERY",
    ]
    /// NSPredicate words Strata does not support; an error unless a property has the name.
    static let unsupportedWords: Set<String> = ["MATCHES", "SELF", "FIRST", "LAST", "SIZE"]

    /// Whatever `%@` stands for when the value is absent: `nil`, `Optional.none`, `NSNull`.
    static func unwrap(_ value: Any) -> Any? {
        var current = value
        while let optional = current as? any PredicateOptional {
            guard let wrapped = optional.predicateWrapped else { return nil }
            current = wrapped
        }
        return current is NSNull ? nil : current
    }

    /// The elements of a collection argument (an array, set, `Results`…); nil for anything else,
    /// including strings and Data.
    static func elements(of value: Any) -> [Any]? {
        guard let value = unwrap(value), !(value is String), !(value is Substring), !(value is Data),
              let collection = value as? any Collection else { return nil }
        return anyElements(collection)
    }

    private static func anyElements<C: Collection>(_ collection: C) -> [Any] { collection.map { $0 } }

    static func typeName(_ value: Any) -> String {
        guard let value = unwrap(value) else { return "nil" }
        return String(describing: type(of: value))
    }
}

/// Lets `unwrap` see through an `Optional` stored in an `Any`.
protocol PredicateOptional {
    var predicateWrapped: Any? { get }
}

extension Optional: PredicateOptional {
    var predicateWrapped: Any? { map { $0 } }
}

extension PredicateParser.State {
    typealias Operand = PredicateParser.Operand
    typealias OperandKind = PredicateParser.OperandKind

    mutating func parseOperand() throws -> Operand {
        let token = advance()
        switch token.kind {
        case .identifier(let name):
            switch name.uppercased() {
            case "TRUE", "YES": return Operand(value: .constant(.bool(true)), text: name, quoted: token.quoted, column: token.column)
            case "FALSE", "NO": return Operand(value: .constant(.bool(false)), text: name, quoted: token.quoted, column: token.column)
            case "NIL", "NULL": return Operand(value: .constant(.null), text: name, quoted: token.quoted, column: token.column)
            case "SUBQUERY" where isSymbol("("):
                return try parseSubquery(at: token)
            case let word where PredicateParser.reservedWords.contains(word):
                throw error("expected a property or a value but found \(token.quoted)", at: token)
            default: return try parseMapKey(keyPath(name, at: token))
            }
        case .escapedIdentifier(let name):
            return try parseMapKey(keyPath(name, at: token))
        case .keyArgument:
            let (value, index) = try takeArgument(for: token)
            guard let name = PredicateParser.unwrap(value) as? String else {
                throw error("argument \(index + 1) for %K must be a String property name, not \(PredicateParser.typeName(value))", at: token)
            }
            return try keyPath(name, at: token, via: "argument \(index + 1) for %K")
        case .argument:
            let (value, index) = try takeArgument(for: token)
            return try argumentOperand(value, text: "argument \(index + 1)", at: token)
        case .integer, .decimal:
            return try number(token, negative: false, at: token)
        case .symbol(let sign) where sign == "-" || sign == "+":
            let digits = advance()
            switch digits.kind {
            case .integer, .decimal: return try number(digits, negative: sign == "-", at: token)
            default: throw error("expected a number after \(token.quoted) but found \(digits.quoted)", at: digits)
            }
        case .string(let text):
            return Operand(value: .constant(.string(text)), text: text, quoted: PredicateLexer.abbreviate(token.text), column: token.column)
        case .symbol("{"):
            throw error("a {…} list is allowed only after IN or BETWEEN", at: token)
        default:
            throw error("expected a property or a value but found \(token.quoted)", at: token)
        }
    }

    /// The next `%@`/`%K` argument and its index.
    mutating func takeArgument(for token: PredicateToken) throws -> (Any, Int) {
        guard nextArgument < arguments.count else {
            let given = arguments.count == 1 ? "1 argument was" : "\(arguments.count) arguments were"
            throw error("no argument left for \(token.quoted): \(given) given", at: token)
        }
        defer { nextArgument += 1 }
        return (arguments[nextArgument], nextArgument)
    }

    /// A `%@` value as a constant.
    func argumentOperand(_ argument: Any, text: String, at token: PredicateToken) throws -> Operand {
        guard let value = PredicateParser.unwrap(argument) else {
            return Operand(value: .constant(.null), text: text, quoted: text, column: token.column)
        }
        func constant(_ field: FieldValue, linkClass: String? = nil) -> Operand {
            Operand(value: .constant(field, linkClass: linkClass), text: text, quoted: text, column: token.column)
        }
        if PredicateParser.elements(of: value) != nil {
            throw error("\(text) is a collection (\(PredicateParser.typeName(value))); only IN and BETWEEN take one", at: token)
        }
        if let object = value as? ObjectBase {
            if object is EmbeddedObject {
                throw error("\(text) is an embedded \(type(of: object).className()); embedded objects cannot be compared", at: token)
            }
            guard let state = object._strataState else {
                throw error("\(text) is an unmanaged \(type(of: object).className()); only a stored object can be compared with a link", at: token)
            }
            return constant(.link(state.key), linkClass: type(of: object).className())
        }
        if let persistable = value as? any _Persistable {
            do {
                return constant(try persistable._strataWrite(nil))
            } catch let failure as StrataError {
                throw error("\(text) cannot be used: \(failure.message)", at: token)
            }
        }
        if let text = value as? Substring { return constant(.string(String(text))) }
        if let number = value as? NSNumber {
            switch String(cString: number.objCType) {
            case "f", "d": return constant(.double(number.doubleValue))
            case "Q", "L", "I", "S", "C":
                guard let exact = Int64(exactly: number.uint64Value) else {
                    throw error("\(text) (\(number)) does not fit a 64-bit integer", at: token)
                }
                return constant(.int(exact))
            default: return constant(.int(number.int64Value))
            }
        }
        if let integer = value as? any BinaryInteger {
            guard let exact = Int64(exactly: integer) else {
                throw error("\(text) (\(integer)) does not fit a 64-bit integer", at: token)
            }
            return constant(.int(exact))
        }
        if let real = value as? any BinaryFloatingPoint { return constant(.double(Double(real))) }
        throw error("\(text) is a \(PredicateParser.typeName(value)), which a predicate cannot compare", at: token)
    }

    private func finite(_ text: String) -> FieldValue? {
        guard let number = Double(text), number.isFinite else { return nil }
        return .double(number)
    }

    /// A number literal; `token` is where it starts (its sign, if any).
    func number(_ digits: PredicateToken, negative: Bool, at token: PredicateToken) throws -> Operand {
        let sign = negative ? "-" : ""
        let written = (token.column == digits.column ? "" : token.text) + digits.text
        var value: FieldValue?
        var decimalText: String? = sign + digits.text
        switch digits.kind {
        case .integer(let text):
            let prefix = text.prefix(2).lowercased()
            if let radix = ["0x": 16, "0o": 8, "0b": 2][prefix] {
                decimalText = nil
                value = Int64(sign + text.dropFirst(2), radix: radix).map(FieldValue.int)
            } else {
                value = Int64(sign + text).map(FieldValue.int) ?? finite(sign + text)
            }
        default:
            value = finite(sign + digits.text)
        }
        guard let value else { throw error("number '\(PredicateLexer.abbreviate(written))' is out of range", at: token) }
        return Operand(value: .constant(value, numberText: decimalText), text: written, quoted: "'\(PredicateLexer.abbreviate(written))'", column: token.column)
    }
}
