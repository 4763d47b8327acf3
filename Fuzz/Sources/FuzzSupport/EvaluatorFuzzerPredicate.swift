// The predicate AST of the EvaluatorFuzzer grammar. Each node keeps the `style` the input chose
// for how it is written (keyword case, operator spelling, literal or `%@`, `%K`, `#name`); the
// meaning does not depend on it. EvaluatorFuzzerRender.swift writes a predicate as text and
// arguments, EvaluatorFuzzerOracle.swift evaluates it, EvaluatorFuzzerGenerator.swift makes it
// from bytes.

/// A value: a constant a predicate compares with, or one the oracle computes with. Links are
/// indexes into the graph's dogs or persons. Never compared with `==` (String's is not by bytes).
public enum EvalValue: Sendable {
    case null
    case int(Int)
    case double(Double)
    case string(String)
    case dog(Int)
    case person(Int)
    /// An embedded address (not null); the oracle's only, never a constant.
    case embedded

    var number: Double? {
        switch self {
        case .int(let number): return Double(number)
        case .double(let number): return number
        default: return nil
        }
    }
}

/// A constant as written: `style` bit 0 set = a `%@` argument, else a literal (objects are
/// always arguments); the other bits pick the literal's spelling or the argument's Swift type.
public struct EvalWritten: Sendable {
    public var value: EvalValue
    public var style: Int

    var isArgument: Bool {
        switch value {
        case .dog, .person: return true
        default: return style & 1 == 1
        }
    }
}

public enum EvalOperator: Sendable, CaseIterable {
    case equal, notEqual, less, lessOrEqual, greater, greaterOrEqual
    case beginsWith, endsWith, contains, like

    var isOrdering: Bool { [.less, .lessOrEqual, .greater, .greaterOrEqual].contains(self) }
    var isString: Bool { [.beginsWith, .endsWith, .contains, .like].contains(self) }

    /// `a op b` is `b op.flipped a`.
    var flipped: EvalOperator {
        switch self {
        case .less: return .greater
        case .lessOrEqual: return .greaterOrEqual
        case .greater: return .less
        case .greaterOrEqual: return .lessOrEqual
        default: return self
        }
    }
}

/// `[c]` (case) and `[d]` (diacritics).
public struct EvalOptions: Sendable, Equatable {
    public var caseInsensitive = false
    public var diacriticInsensitive = false

    var isEmpty: Bool { !caseInsensitive && !diacriticInsensitive }
}

/// ANY, SOME, ALL, NONE (named so that `.noneOf` is never taken for `Optional.none`).
public enum EvalQuantifier: Sendable {
    case anyOf, someOf, allOf, noneOf
}

public enum EvalAggregate: Sendable {
    case min, max, sum, avg
}

/// The left side of a comparison (or a right side that is not a constant).
public indirect enum EvalOperand: Sendable {
    case path(EvalPath)
    /// `collection.@count` (or `@size`).
    case count(EvalPath, size: Bool)
    /// `collection.@min.element` and the like; no element for a collection of values.
    case aggregate(EvalAggregate, EvalPath, element: EvalPath?)
    /// `name.@size`: a string's length in UTF-8 bytes.
    case stringSize(EvalPath)
    /// `SUBQUERY(collection, $variable, predicate).@count`.
    case subquery(EvalPath, variable: String, EvalPredicate)

    var isMultiple: Bool {
        if case .path(let path) = self { return path.isMultiple }
        return false
    }
}

/// What a comparison tests its left side with.
public enum EvalTest: Sendable {
    /// `lhs op constant`; `flipped` writes `constant op.flipped lhs`.
    case constant(EvalOperator, EvalOptions, EvalWritten, flipped: Bool)
    /// `lhs op operand`, the operand single-valued.
    case operand(EvalOperator, EvalOptions, EvalOperand)
    /// `lhs IN {…}`, or `lhs IN %@` (an array) when `asArgument`.
    case list(EvalOptions, [EvalWritten], asArgument: Bool)
    /// `lhs BETWEEN {lower, upper}`, or `BETWEEN %@`.
    case between(EvalWritten, EvalWritten, asArgument: Bool)
    /// `lhs IN collection`: a single value found among a many-valued path's.
    case inCollection(EvalOptions, EvalPath)
    /// `constant IN lhs`: the many-valued lhs holds the constant.
    case member(EvalOptions, EvalWritten)
}

public struct EvalComparison: Sendable {
    /// Written before the left side; nil writes none (ANY for a many-valued left side).
    public var quantifier: EvalQuantifier?
    public var lhs: EvalOperand
    public var test: EvalTest
    /// Spelling choices: operator and keyword forms, `%K`, `#name`.
    public var style: Int
}

public indirect enum EvalPredicate: Sendable {
    case constant(Bool, style: Int)
    case not(EvalPredicate, style: Int)
    case and([EvalPredicate], style: Int)
    case or([EvalPredicate], style: Int)
    case compare(EvalComparison)
}
