import StrataStorage

/// Parses the NSPredicate-format subset Realm's `filter(_:_:)` takes into a ``QueryNode``.
///
/// Grammar (keywords ignore case; `#name` names a property that is spelled like a keyword):
///
///     predicate  := or END
///     or         := and (("OR" | "||") and)*
///     and        := unary (("AND" | "&&") unary)*
///     unary      := ("NOT" | "!")* primary
///     primary    := "(" or ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
///     comparison := operand op options? operand
///                 | operand ("BEGINSWITH" | "ENDSWITH" | "CONTAINS" | "LIKE") options? operand
///                 | operand "IN" options? list
///                 | operand "BETWEEN" list          (exactly two values)
///     op         := "==" | "=" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>"
///     options    := "[" ("c" | "d" | "cd") "]"
///     list       := "{" (operand ("," operand)*)? "}" | "%@"   (a Swift collection)
///     operand    := property | "%K" | "%@" | number | string | TRUE | FALSE | YES | NO | NIL | NULL
///
/// `[c]` makes a string comparison case-insensitive (by `lowercased()`, as the evaluator does);
/// `[d]` (diacritic-insensitive) is accepted and ignored. `==[c]` and `!=[c]` become
/// case-insensitive `LIKE` with the value's wildcards escaped. `LIKE` takes `?` (one character)
/// and `*` (any run); a backslash makes the next pattern character literal. `IN` becomes an OR
/// of equalities, `BETWEEN {a, b}` `>= a AND <= b`. A constant is converted to its property's
/// type where Realm would (a number literal for a Float or Decimal128 property, a string for
/// Data, UUID or ObjectId), and a comparison with the property on the right is flipped.
///
/// Not supported (each is a clear error): key paths across links, collection properties,
/// aggregates (`@count`…), `ANY`/`ALL`/`NONE`/`SUBQUERY`, `MATCHES`, `$` variables, date
/// literals. Nesting of parentheses and `NOT` is limited to ``maxDepth``, and AND/OR chains build
/// balanced trees, so no input can exhaust the stack; every failure is a thrown error.
enum PredicateParser {
    /// The deepest nesting of parentheses and NOTs accepted.
    static let maxDepth = 100

    /// The query `format` describes for objects of `schema`, with `%@` and `%K` taking
    /// `arguments` in order.
    /// - Throws: ``StrataError`` `.invalidArgument` whose message names the offending token and
    ///   its column.
    static func parse(_ format: String, arguments: [Any], schema: ObjectSchema) throws -> QueryNode {
        var state = State(tokens: try PredicateLexer.tokenize(format), arguments: arguments, schema: schema)
        return try state.parsePredicate()
    }

    /// The parser's position in the tokens and arguments.
    struct State {
        let tokens: [PredicateToken]
        let arguments: [Any]
        let schema: ObjectSchema
        var position = 0
        var nextArgument = 0
        var depth = 0

        init(tokens: [PredicateToken], arguments: [Any], schema: ObjectSchema) {
            self.tokens = tokens
            self.arguments = arguments
            self.schema = schema
        }

        var current: PredicateToken { tokens[min(position, tokens.count - 1)] }

        mutating func advance() -> PredicateToken {
            let token = current
            if position < tokens.count - 1 { position += 1 }
            return token
        }

        /// The current token's keyword (upper-cased identifier), or nil.
        var keyword: String? {
            if case .identifier(let name) = current.kind { return name.uppercased() }
            return nil
        }

        func isSymbol(_ symbols: String...) -> Bool {
            if case .symbol(let symbol) = current.kind { return symbols.contains(symbol) }
            return false
        }

        func error(_ message: String, at token: PredicateToken) -> StrataError {
            StrataError(.invalidArgument, "\(message) (at column \(token.column))")
        }

        mutating func expect(_ symbol: String, _ what: String) throws {
            guard isSymbol(symbol) else { throw error("expected \(what) but found \(current.quoted)", at: current) }
            _ = advance()
        }

        // MARK: Logical structure

        mutating func parsePredicate() throws -> QueryNode {
            if current.kind == .end { throw error("the predicate is empty", at: current) }
            let node = try parseOr()
            guard current.kind == .end else {
                throw error("unexpected \(current.quoted) after a complete predicate", at: current)
            }
            guard nextArgument == arguments.count else {
                let given = arguments.count == 1 ? "1 argument was" : "\(arguments.count) arguments were"
                throw StrataError(.invalidArgument, "\(given) given but the predicate uses \(nextArgument) (%@ or %K)")
            }
            return node
        }

        mutating func parseOr() throws -> QueryNode {
            var terms = [try parseAnd()]
            while keyword == "OR" || isSymbol("||") {
                _ = advance()
                terms.append(try parseAnd())
            }
            return PredicateParser.balanced(terms[...], QueryNode.or)
        }

        mutating func parseAnd() throws -> QueryNode {
            var terms = [try parseUnary()]
            while keyword == "AND" || isSymbol("&&") {
                _ = advance()
                terms.append(try parseUnary())
            }
            return PredicateParser.balanced(terms[...], QueryNode.and)
        }

        mutating func parseUnary() throws -> QueryNode {
            var negations = 0
            while keyword == "NOT" || isSymbol("!") {
                try enter()
                negations += 1
                _ = advance()
            }
            let node = try parsePrimary()
            depth -= negations
            return negations % 2 == 1 ? .not(node) : node
        }

        /// Counts one level of nesting. - Throws: past ``PredicateParser/maxDepth``.
        mutating func enter() throws {
            depth += 1
            if depth > PredicateParser.maxDepth {
                throw error("the predicate nests parentheses and NOTs deeper than \(PredicateParser.maxDepth) levels at \(current.quoted)", at: current)
            }
        }

        mutating func parsePrimary() throws -> QueryNode {
            if isSymbol("(") {
                try enter()
                _ = advance()
                let node = try parseOr()
                try expect(")", "')'")
                depth -= 1
                return node
            }
            switch keyword {
            case "TRUEPREDICATE": _ = advance(); return .constant(.bool(true))
            case "FALSEPREDICATE": _ = advance(); return .constant(.bool(false))
            default: return try parseComparison()
            }
        }

        // MARK: Comparisons

        static let comparisonSymbols: [String: ComparisonOperator] = [
            "==": .equal, "=": .equal, "!=": .notEqual, "<>": .notEqual, "<": .less, "<=": .lessOrEqual,
            "=<": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual, "=>": .greaterOrEqual,
        ]
        static let stringKeywords: [String: StringOperator] = [
            "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith, "CONTAINS": .contains, "LIKE": .like,
        ]

        mutating func parseComparison() throws -> QueryNode {
            let lhs = try parseOperand()
            let opToken = current
            if case .symbol(let symbol) = opToken.kind, let op = State.comparisonSymbols[symbol] {
                _ = advance()
                let caseInsensitive = try parseOptions()
                let rhs = try parseOperand()
                return try compare(op, lhs, rhs, caseInsensitive: caseInsensitive, at: opToken)
            }
            switch keyword {
            case let word? where State.stringKeywords[word] != nil:
                _ = advance()
                let caseInsensitive = try parseOptions()
                let rhs = try parseOperand()
                return try stringCompare(State.stringKeywords[word]!, lhs, rhs, caseInsensitive: caseInsensitive, at: opToken)
            case "IN":
                _ = advance()
                let caseInsensitive = try parseOptions()
                let values = try parseList(after: opToken)
                let equalities = try values.map { try compare(.equal, lhs, $0, caseInsensitive: caseInsensitive, at: opToken) }
                return equalities.isEmpty ? .constant(.bool(false)) : PredicateParser.balanced(equalities[...], QueryNode.or)
            case "BETWEEN":
                _ = advance()
                let values = try parseList(after: opToken)
                guard values.count == 2 else {
                    throw error("BETWEEN takes exactly two values, {lower, upper}, not \(values.count)", at: opToken)
                }
                return .and(try compare(.greaterOrEqual, lhs, values[0], caseInsensitive: false, at: opToken),
                            try compare(.lessOrEqual, lhs, values[1], caseInsensitive: false, at: opToken))
            default:
                let hint = lhs.isBoolProperty ? "; write '\(lhs.text) == true'" : ""
                throw error("expected a comparison operator after \(lhs.quoted) but found \(current.quoted)\(hint)", at: current)
            }
        }

        /// `[c]`, `[d]`, `[cd]` after an operator: whether it is case-insensitive.
        mutating func parseOptions() throws -> Bool {
            guard isSymbol("[") else { return false }
            let open = advance()
            guard case .identifier(let letters) = current.kind,
                  !letters.isEmpty, letters.lowercased().allSatisfy({ $0 == "c" || $0 == "d" }) else {
                throw error("expected a comparison option [c], [d] or [cd] but found \(current.quoted)", at: current)
            }
            _ = advance()
            try expect("]", "']' to close the option opened at column \(open.column)")
            return letters.lowercased().contains("c")
        }

        /// `{a, b, …}` or `%@` bound to a Swift collection, for IN and BETWEEN.
        mutating func parseList(after op: PredicateToken) throws -> [Operand] {
            if current.kind == .argument {
                let token = advance()
                let (value, index) = try takeArgument(for: token)
                guard let elements = PredicateParser.elements(of: value) else {
                    throw error("argument \(index + 1) for \(op.text.uppercased()) must be an array, not \(PredicateParser.typeName(value))", at: token)
                }
                return try elements.enumerated().map { offset, element in
                    try argumentOperand(element, text: "element \(offset) of argument \(index + 1)", at: token)
                }
            }
            try expect("{", "'{' or %@ after \(op.text.uppercased())")
            var values: [Operand] = []
            if isSymbol("}") { _ = advance(); return values }
            while true {
                values.append(try parseOperand())
                if isSymbol("}") { _ = advance(); return values }
                try expect(",", "',' or '}' in the list")
            }
        }
    }

    /// `nodes` joined by `combine` as a balanced tree, so long chains stay shallow.
    static func balanced(_ nodes: ArraySlice<QueryNode>, _ combine: (QueryNode, QueryNode) -> QueryNode) -> QueryNode {
        if nodes.count <= 1 { return nodes.first ?? .constant(.bool(false)) }
        let middle = nodes.startIndex + nodes.count / 2
        return combine(balanced(nodes[..<middle], combine), balanced(nodes[middle...], combine))
    }
}
