import Foundation
import StrataStorage

// Type-checks comparisons and builds their QueryNodes: the property goes on the left, constants
// are converted to the property's stored type, `==[c]` becomes an escaped case-insensitive LIKE.

extension ComparisonOperator {
    /// The operator with its operands swapped: `3 < age` is `age > 3`.
    var flipped: ComparisonOperator {
        switch self {
        case .equal, .notEqual: return self
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        }
    }

    var isOrdering: Bool { self != .equal && self != .notEqual }
}

extension PredicateParser.State {
    /// `lhs op rhs`, type-checked.
    func compare(_ op: ComparisonOperator, _ lhs: Operand, _ rhs: Operand, caseInsensitive: Bool, at token: PredicateToken) throws -> QueryNode {
        if case .constant = lhs.value, case .property = rhs.value {
            return try compare(op.flipped, rhs, lhs, caseInsensitive: caseInsensitive, at: token)
        }
        if caseInsensitive && op.isOrdering {
            throw error("[c] applies only to ==, !=, IN and the string operators, not \(token.quoted)", at: token)
        }
        var right = rhs.node
        if case .property(let property) = lhs.value {
            try checkOperator(op, property, lhs, at: token)
            switch rhs.value {
            case .property(let other):
                try checkOperator(op, other, rhs, at: token)
                guard PredicateParser.comparable(property.type.type, other.type.type) else {
                    throw error("cannot compare \(lhs.quoted) (\(property.type)) with \(rhs.quoted) (\(other.type))", at: rhs)
                }
                if caseInsensitive {
                    throw error("[c] between two properties (\(lhs.quoted), \(rhs.quoted)) is not supported", at: token)
                }
            case .constant(let value, let numberText, let linkClass):
                if op.isOrdering && value.isNull {
                    throw error("\(token.quoted) cannot compare with nil (\(rhs.quoted)); use == or !=", at: rhs)
                }
                guard let converted = PredicateParser.convert(value, numberText: numberText, linkClass: linkClass, to: property.type.type) else {
                    throw error("cannot compare \(property.type) property \(lhs.quoted) with \(rhs.quoted), \(PredicateParser.kindName(value, linkClass: linkClass))", at: rhs)
                }
                right = .constant(converted)
            }
        }
        guard caseInsensitive, case .constant(let value) = right, !value.isNull else {
            return .compare(op, lhs.node, right)
        }
        guard case .string(let text) = value, isStringLike(lhs) else {
            throw error("[c] needs strings on both sides of \(token.quoted), not \(lhs.quoted) and \(rhs.quoted)", at: token)
        }
        let like = QueryNode.string(.like, lhs.node, .constant(.string(LikePattern.escape(text))), caseInsensitive: true)
        return op == .equal ? like : .not(like)
    }

    /// `lhs BEGINSWITH rhs` and the like; both sides must be strings.
    func stringCompare(_ op: StringOperator, _ lhs: Operand, _ rhs: Operand, caseInsensitive: Bool, at token: PredicateToken) throws -> QueryNode {
        for operand in [lhs, rhs] where !isStringLike(operand) {
            let what: String
            switch operand.value {
            case .property(let property): what = "\(property.type) property \(operand.quoted)"
            case .constant(let value, _, let linkClass): what = "\(operand.quoted), \(PredicateParser.kindName(value, linkClass: linkClass))"
            }
            throw error("\(token.text.uppercased()) needs strings, not \(what)", at: operand)
        }
        return .string(op, lhs.node, rhs.node, caseInsensitive: caseInsensitive)
    }

    func error(_ message: String, at operand: Operand) -> StrataError {
        StrataError(.invalidArgument, "\(message) (at column \(operand.column))")
    }

    private func isStringLike(_ operand: Operand) -> Bool {
        switch operand.value {
        case .property(let property): return property.type.type == .string || property.type.type == .any
        case .constant(let value, _, _): if case .string = value { return true } else { return false }
        }
    }

    private func checkOperator(_ op: ComparisonOperator, _ property: PropertySchema, _ operand: Operand, at token: PredicateToken) throws {
        guard op.isOrdering else { return }
        switch property.type.type {
        case .bool, .object:
            throw error("\(token.quoted) does not apply to \(property.type) property \(operand.quoted); use == or !=", at: token)
        default: return
        }
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
