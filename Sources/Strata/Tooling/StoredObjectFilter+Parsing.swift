import StrataStorage

// The recursive-descent parser of `StoredObjectFilter` (its grammar is in StoredObjectFilter.swift).

struct FilterParser {
    let tokens: [PredicateToken]
    let storedClass: StoredClass
    private var position = 0
    /// The parentheses and NOTs open at the current token.
    private var depth = 0

    init(tokens: [PredicateToken], storedClass: StoredClass) {
        self.tokens = tokens
        self.storedClass = storedClass
    }

    private var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

    /// Whether the current token is the keyword or symbol `word` (keywords ignore case); if so,
    /// moves past it.
    private mutating func take(_ words: String...) -> Bool {
        let text: String
        switch current.kind {
        case .identifier(let name): text = name.uppercased()
        case .symbol(let symbol): text = symbol
        default: return false
        }
        guard words.contains(text) else { return false }
        position += 1
        return true
    }

    private func error(_ message: String) -> StrataError {
        StrataError(.invalidQuery, "\(message) at column \(current.column), at \(current.quoted)")
    }

    mutating func expectEnd() throws {
        guard current.kind == .end else { throw error("expected the end of the predicate") }
    }

    mutating func predicate() throws -> StoredObjectFilter.Node {
        var terms = [try conjunction()]
        while take("OR", "||") { terms.append(try conjunction()) }
        return terms.count == 1 ? terms[0] : .or(terms)
    }

    private mutating func conjunction() throws -> StoredObjectFilter.Node {
        var terms = [try unary()]
        while take("AND", "&&") { terms.append(try unary()) }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    /// NOTs and a parenthesized predicate or a comparison. NOTs are counted, not recursed into,
    /// and parentheses nest at most `PredicateParser.maxDepth` levels (NOTs included), so no
    /// predicate can exhaust the stack.
    private mutating func unary() throws -> StoredObjectFilter.Node {
        var negations = 0
        while take("NOT", "!") {
            try enter()
            negations += 1
        }
        defer { depth -= negations }
        let node: StoredObjectFilter.Node
        if take("(") {
            try enter()
            node = try predicate()
            depth -= 1
            guard take(")") else { throw error("expected ')'") }
        } else {
            node = try comparison()
        }
        return negations % 2 == 1 ? .not(node) : node
    }

    /// Counts one level of nesting.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` past `PredicateParser.maxDepth` levels.
    private mutating func enter() throws {
        depth += 1
        guard depth <= PredicateParser.maxDepth else {
            throw error("the predicate nests parentheses and NOTs deeper than \(PredicateParser.maxDepth) levels")
        }
    }

    private mutating func comparison() throws -> StoredObjectFilter.Node {
        let property = try propertyName()
        let operators = ["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "BEGINSWITH", "ENDSWITH", "CONTAINS"]
        let spelled = current.kind == .end ? "" : current.text.uppercased()
        guard let op = operators.first(where: { $0 == spelled }).map(Self.canonical), take(spelled) else {
            throw error("expected a comparison operator (== != < <= > >= BEGINSWITH ENDSWITH CONTAINS)")
        }
        let literal = try self.literal()
        try check(property, op, literal)
        return .comparison(propertyID: property.id, empty: property.type.emptyValue, operator: op, literal: literal)
    }

    private static func canonical(_ op: String) -> String {
        ["=": "==", "<>": "!=", "=<": "<=", "=>": ">="][op] ?? op
    }

    private mutating func propertyName() throws -> StoredProperty {
        guard case .identifier(let name) = current.kind else { throw error("expected a property name") }
        guard let property = storedClass.property(named: name) else {
            throw error("\(storedClass.name) has no property '\(name)'")
        }
        position += 1
        return property
    }

    private mutating func literal() throws -> FieldValue {
        let negative = take("-")
        let token = current
        position += 1
        switch token.kind {
        case .integer(let text): if let number = Int64(text) { return .int(negative ? -number : number) }
        case .decimal(let text): if let number = Double(text) { return .double(negative ? -number : number) }
        case .string(let text) where !negative: return .string(text)
        case .identifier(let word) where !negative:
            switch word.lowercased() {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "nil", "null": return .null
            default: break
            }
        default: break
        }
        position -= 1
        throw error("expected a number, a string, true, false or nil")
    }

    /// Refuses comparisons the filter does not do: a property that is not a top-level scalar,
    /// or a literal of another type.
    private func check(_ property: StoredProperty, _ op: String, _ literal: FieldValue) throws {
        let type = property.type
        let fits: Bool
        switch (type.type, literal) {
        case (_, .null): fits = type.isOptional && (op == "==" || op == "!=")
        case (.string, .string): fits = true
        case (.bool, .bool): fits = op == "==" || op == "!="
        case (.int, _), (.int8, _), (.int16, _), (.int32, _), (.int64, _), (.float, _), (.double, _):
            fits = literal.numericValue != nil && !["BEGINSWITH", "ENDSWITH", "CONTAINS"].contains(op)
        default: fits = false
        }
        guard fits else {
            throw StrataError(.invalidQuery, "\(storedClass.name).\(property.name) (\(type)) cannot be compared with \(op) to that value: --where compares top-level Bool, integer, Float, Double and String properties")
        }
    }
}
