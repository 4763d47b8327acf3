import StrataStorage

// The recursive-descent parser of `StoredObjectFilter` (its grammar is in StoredObjectFilter.swift).

struct FilterParser {
    let tokens: [PredicateToken]
    let storedClass: StoredClass
    private var position = 0

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
        var node = try conjunction()
        while take("OR", "||") { node = .or(node, try conjunction()) }
        return node
    }

    private mutating func conjunction() throws -> StoredObjectFilter.Node {
        var node = try unary()
        while take("AND", "&&") { node = .and(node, try unary()) }
        return node
    }

    private mutating func unary() throws -> StoredObjectFilter.Node {
        if take("NOT", "!") { return .not(try unary()) }
        if take("(") {
            let inner = try predicate()
            guard take(")") else { throw error("expected ')'") }
            return inner
        }
        return try comparison()
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
