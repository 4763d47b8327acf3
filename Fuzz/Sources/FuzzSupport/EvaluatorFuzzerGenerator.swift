// Turns bytes into an EvaluatorFuzzer predicate (EvaluatorFuzzerPredicate.swift). Every choice
// is a byte modulo the number of options; missing bytes read as 0, which picks a comparison
// (not AND/OR/NOT), so every input ends. Every predicate made here is one Strata must accept:
// paths come from the catalog by role, constants have the path's type, `[c]`/`[d]` go only on
// string equality and string operators, nil only with == and !=, quantifiers only before
// many-valued paths, objects only as arguments.
//
//   predicate     byte % 14: 0–7 a comparison, 8–9 AND, 10–11 OR, 12 NOT, 13 TRUE/FALSEPREDICATE
//                 (then a style byte); AND and OR take 2–3 terms; depth at most 4
//   comparison    a kind byte % 14 and a style byte (EvaluatorFuzzerRender.swift), then what the
//                 kind needs: 0–3 path op constant, 4 IN {…}, 5 BETWEEN, 6 constant IN path,
//                 7 path op path, 8 @count/@size, 9 @min/@max/@sum/@avg, 10 SUBQUERY (nested at
//                 most twice), 11 links, 12 nil checks, 13 path IN path
//   constant      a byte for nil/kind, a byte for the pool index, a style byte (`%@` or literal)

struct EvalGenerator {
    var reader: OpsByteReader
    let graph: EvalGraph
    var argumentsLeft = EvalGenerator.maxArguments
    var comparisonsLeft = 16
    var subqueries = 0

    /// The most `%@`/`%K` arguments a predicate takes (the harness passes at most this many).
    static let maxArguments = 10
    static let maxDepth = 4
    static let numericOperators: [EvalOperator] = [.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual]

    mutating func byte() -> Int { reader.next() }

    mutating func pick<T>(_ options: [T]) -> T { options[byte() % options.count] }

    /// A path of `paths` (shortest first), chosen with a bias to the front: index ≈ n·(b/256)²,
    /// so one- and two-step paths come up about as often as the far more numerous longer ones.
    mutating func pickPath(_ paths: [EvalPath]) -> EvalPath {
        let choice = byte()
        return paths[choice * choice * paths.count / 65536]
    }

    mutating func predicate(on root: EvalClass, depth: Int = 0) -> EvalPredicate {
        guard comparisonsLeft > 0 else { return .constant(true, style: 0) }
        let choice = byte() % 14
        if choice < 8 || depth >= EvalGenerator.maxDepth { return comparison(on: root, depth: depth) }
        let style = byte()
        switch choice {
        case 8, 9: return .and(terms(on: root, depth: depth), style: style)
        case 10, 11: return .or(terms(on: root, depth: depth), style: style)
        case 12: return .not(predicate(on: root, depth: depth + 1), style: style)
        default: return .constant(style & 2 == 0, style: style)
        }
    }

    private mutating func terms(on root: EvalClass, depth: Int) -> [EvalPredicate] {
        (0..<(2 + byte() % 2)).map { _ in predicate(on: root, depth: depth + 1) }
    }

    // MARK: Constants

    /// A constant written as a literal or, when the style byte says so and one is left, `%@`.
    mutating func written(_ value: EvalValue) -> EvalWritten {
        var style = byte()
        if argumentsLeft == 0 { style &= ~1 }
        if style & 1 == 1 { argumentsLeft -= 1 }
        return EvalWritten(value: value, style: style)
    }

    /// An element of an array argument (never a `%@` of its own).
    mutating func element(_ value: EvalValue) -> EvalWritten {
        EvalWritten(value: value, style: byte() & ~1)
    }

    /// A value a path of `type` compares with: Ints and Doubles for numbers, strings for
    /// strings, and nil when `nullable` (one in eleven).
    mutating func value(of type: EvalType, nullable: Bool) -> EvalValue {
        let kind = byte()
        if nullable, kind % 11 == 10 { return .null }
        switch type {
        case .int, .double:
            return kind % 4 == 3 ? .double(pick(EvalPools.doubles)) : .int(pick(EvalPools.ints))
        case .string:
            return .string(pick(EvalPools.strings))
        case .dog, .person, .address:
            return .null
        }
    }

    /// A LIKE pattern: a pool string with `*` and `?` put in.
    mutating func likePattern() -> String {
        var scalars = Array(pick(EvalPools.strings).unicodeScalars)
        switch byte() % 7 {
        case 0: break
        case 1: scalars.insert("*", at: 0)
        case 2: scalars.append("*")
        case 3: scalars = ["*"] + scalars + ["*"]
        case 4: if !scalars.isEmpty { scalars[0] = "?" }
        case 5: if !scalars.isEmpty { scalars[scalars.count - 1] = "?" }
        default: scalars = ["?"] + scalars + ["*"]
        }
        var pattern = ""
        pattern.unicodeScalars.append(contentsOf: scalars)
        return pattern
    }

    /// A stored object of `type` (dog or person), as an argument; nil when none is left.
    mutating func object(_ type: EvalType) -> EvalWritten? {
        let index = byte()
        guard argumentsLeft > 0 else { return nil }
        argumentsLeft -= 1
        let value: EvalValue = type == .dog ? .dog(index % graph.dogs.count) : .person(index % graph.persons.count)
        return EvalWritten(value: value, style: 1)
    }

    // MARK: Operators

    mutating func op(for type: EvalType) -> EvalOperator {
        type == .string ? pick(EvalOperator.allCases) : pick(EvalGenerator.numericOperators)
    }

    /// `[c]`, `[d]` or `[cd]` where they apply (strings, with equality or a string operator).
    mutating func options(_ op: EvalOperator, _ type: EvalType) -> EvalOptions {
        let choice = byte()
        guard type == .string, !op.isOrdering else { return EvalOptions() }
        return EvalOptions(caseInsensitive: choice & 1 != 0, diacriticInsensitive: choice & 2 != 0)
    }

    /// ANY, SOME, ALL, NONE or none written, before a many-valued left side.
    mutating func quantifier(_ lhs: EvalOperand) -> EvalQuantifier? {
        let choice = byte()
        guard lhs.isMultiple else { return nil }
        return [nil, .anyOf, .someOf, .allOf, .noneOf][choice % 5]
    }
}
