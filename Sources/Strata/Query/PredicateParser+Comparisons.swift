import Foundation
import StrataStorage

// Type-checks comparisons and builds their QueryNodes: the key path goes on the left, constants
// are converted to its stored type, `[c]`/`[d]` are kept as the comparison's string options.

extension PredicateParser.State {
    /// `lhs op rhs`, type-checked, with constants converted to the other side's stored type.
    func compare(_ op: QueryOperator, _ lhs: Operand, _ rhs: Operand, options: QueryStringOptions,
                 quantifier: QueryQuantifier = .any, at token: PredicateToken) throws -> QueryNode {
        if case .constant = lhs.value, case .expression = rhs.value, quantifier == .any, !op.isString {
            return try compare(op.flipped, rhs, lhs, options: options, at: token)
        }
        if !options.isEmpty && op.isOrdering {
            throw error("[c] and [d] apply only to ==, !=, IN and the string operators, not \(token.quoted)", at: token)
        }
        if op.isString { try checkStrings(lhs, rhs, at: token) }
        let right = try converted(rhs, toMatch: lhs, op: op, at: token)
        if let kind = lhs.kind, case .constant = right, !options.isEmpty, kind.type != .string, kind.type != .any {
            throw error("[c] and [d] need strings, not \(kind.type) property \(lhs.quoted)", at: token)
        }
        return .compare(QueryComparison(op: op, lhs: lhs.queryValue, rhs: right, quantifier: quantifier, options: options))
    }

    /// `lhs IN {…}` or `lhs BETWEEN {a, b}`: each value converted as `compare` does.
    func compare(_ op: QueryOperator, _ lhs: Operand, list: [Operand], options: QueryStringOptions,
                 quantifier: QueryQuantifier, at token: PredicateToken) throws -> QueryNode {
        let values = try list.map { operand -> FieldValue in
            guard case .constant(let value) = try converted(operand, toMatch: lhs, op: op == .between ? .lessOrEqual : .equal, at: token) else {
                throw error("\(token.text.uppercased()) takes values, not the property \(operand.quoted)", at: operand)
            }
            return value
        }
        if op == .between, case .constant = lhs.value {
            throw error("BETWEEN needs a property on its left, not \(lhs.quoted)", at: lhs)
        }
        return .compare(QueryComparison(op: op, lhs: lhs.queryValue, rhs: .list(values), quantifier: quantifier, options: options))
    }

    /// The right side of `lhs op rhs`: a constant converted to the left side's type, or a key
    /// path whose type the left side's compares with.
    private func converted(_ rhs: Operand, toMatch lhs: Operand, op: QueryOperator, at token: PredicateToken) throws -> QueryValue {
        guard let kind = lhs.kind else { return rhs.queryValue }
        if op.isOrdering || op == .between { try checkOrdering(kind, lhs, at: token) }
        switch rhs.value {
        case .expression(let value, let other):
            if op.isOrdering { try checkOrdering(other, rhs, at: token) }
            guard PredicateParser.comparable(kind.type, other.type) else {
                throw error("cannot compare \(lhs.quoted) (\(kind.type)) with \(rhs.quoted) (\(other.type))", at: rhs)
            }
            return value
        case .constant(let value, let numberText, let linkClass):
            if (op.isOrdering || op == .between) && value.isNull {
                throw error("\(token.quoted) cannot compare with nil (\(rhs.quoted)); use == or !=", at: rhs)
            }
            if op.isString { return .constant(value) }
            guard let field = PredicateParser.convert(value, numberText: numberText, linkClass: linkClass, to: kind.type) else {
                throw error("cannot compare \(kind.type) property \(lhs.quoted) with \(rhs.quoted), \(PredicateParser.kindName(value, linkClass: linkClass))", at: rhs)
            }
            return .constant(field)
        }
    }

    /// Both sides of a string operator are strings.
    private func checkStrings(_ lhs: Operand, _ rhs: Operand, at token: PredicateToken) throws {
        for operand in [lhs, rhs] {
            switch operand.value {
            case .expression(_, let kind) where kind.type != .string && kind.type != .any:
                throw error("\(token.text.uppercased()) needs strings, not \(kind.type) property \(operand.quoted)", at: operand)
            case .constant(let value, _, let linkClass):
                if case .string = value { continue }
                throw error("\(token.text.uppercased()) needs strings, not \(operand.quoted), \(PredicateParser.kindName(value, linkClass: linkClass))", at: operand)
            default: continue
            }
        }
    }

    private func checkOrdering(_ kind: OperandKind, _ operand: Operand, at token: PredicateToken) throws {
        switch kind.type {
        case .bool, .object, .linkingObjects, .list, .set, .map:
            throw error("\(token.quoted) does not apply to \(kind.type) property \(operand.quoted); use == or !=", at: token)
        default: return
        }
    }

    func error(_ message: String, at operand: Operand) -> StrataError {
        StrataError(.invalidQuery, "\(message) (at column \(operand.column))")
    }
}

extension PredicateParser {
    static func isNumeric(_ type: PropertyType) -> Bool {
        switch type {
        case .int, .int8, .int16, .int32, .int64, .float, .double: return true
        default: return false
        }
    }

    /// Whether the evaluator can compare values of two property types.
    static func comparable(_ lhs: PropertyType, _ rhs: PropertyType) -> Bool {
        lhs == rhs || lhs == .any || rhs == .any || (isNumeric(lhs) && isNumeric(rhs))
    }

    /// `value` as stored for a property of `type`, or nil when it does not fit.
    static func convert(_ value: FieldValue, numberText: String?, linkClass: String?, to type: PropertyType) -> FieldValue? {
        switch (type, value) {
        case (_, .null), (.any, _), (.bool, .bool), (.string, .string), (.data, .data), (.date, .date),
             (.uuid, .uuid), (.objectId, .objectId), (.decimal128, .decimal):
            return value
        case (.int, .int), (.int8, .int), (.int16, .int), (.int32, .int), (.int64, .int),
             (.int, .double), (.int8, .double), (.int16, .double), (.int32, .double), (.int64, .double),
             (.int, .float), (.int8, .float), (.int16, .float), (.int32, .float), (.int64, .float),
             (.double, .int), (.double, .float), (.double, .double), (.float, .int), (.float, .float):
            return value
        case (.float, .double(let number)):
            return .float(Float(number))
        case (.decimal128, .int(let number)):
            return .decimal(Decimal128(number))
        case (.decimal128, .double(let number)):
            return .decimal(numberText.flatMap { Decimal128($0) } ?? Decimal128(number))
        case (.decimal128, .float(let number)):
            return .decimal(Decimal128(Double(number)))
        case (.data, .string(let text)):
            return .data(Data(text.utf8))
        case (.uuid, .string(let text)):
            return UUID(uuidString: text).map(FieldValue.uuid)
        case (.objectId, .string(let text)):
            return ObjectId(text).map(FieldValue.objectId)
        case (.object(let className), .link):
            return linkClass == className ? value : nil
        default:
            return nil
        }
    }

    /// How messages describe a constant's kind.
    static func kindName(_ value: FieldValue, linkClass: String?) -> String {
        switch value {
        case .null: return "nil"
        case .bool: return "a Bool"
        case .int: return "an integer"
        case .float, .double: return "a number"
        case .string: return "a string"
        case .data: return "Data"
        case .date: return "a Date"
        case .decimal: return "a Decimal128"
        case .uuid: return "a UUID"
        case .objectId: return "an ObjectId"
        case .link: return "a \(linkClass ?? "object")"
        case .list, .set, .map, .embedded: return "a collection"
        }
    }
}
