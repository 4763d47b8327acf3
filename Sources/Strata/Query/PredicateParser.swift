import StrataStorage

/// Parses the NSPredicate-format predicates Realm's `filter(_:_:)` takes into a ``QueryNode``.
///
/// Grammar (keywords ignore case; `#name` names a property that is spelled like a keyword):
///
///     predicate  := or END
///     or         := and (("OR" | "||") and)*
///     and        := unary (("AND" | "&&") unary)*
///     unary      := ("NOT" | "!")* primary
///     primary    := "(" or ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison
///     comparison := quantifier? operand op options? operand
///                 | quantifier? operand ("BEGINSWITH" | "ENDSWITH" | "CONTAINS" | "LIKE") options? operand
///                 | quantifier? operand "IN" options? (list | keypath)
///                 | quantifier? operand "BETWEEN" list          (exactly two values)
///     quantifier := "ANY" | "SOME" | "ALL" | "NONE"
///     op         := "==" | "=" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>"
///     options    := "[" ("c" | "d" | "cd") "]"
///     list       := "{" (operand ("," operand)*)? "}" | "%@"   (a Swift collection)
///     operand    := keypath | keypath "['" key "']" | "%K" | "%@" | "%d" | "%i" | "%f" | "%s"
///                 | number | string | TRUE | FALSE | YES | NO | NIL | NULL
///                 | "SUBQUERY(" keypath "," $var "," or ")" ".@count"
///     keypath    := ($var ".")? part ("." part)*
///     part       := property | "@count" | "@size" | "@min" | "@max" | "@sum" | "@avg"
///                 | "@links" "." class "." property | "@allKeys" | "@allValues" | "@type"
///
/// A key path through a list, set, map or backlinks is many-valued: a comparison holds when ANY
/// of its values satisfies it (ALL: every one, NONE: none). `[c]` ignores case, `[d]`
/// diacritics. `LIKE` takes `?` (one character) and `*` (any run); a backslash makes the next
/// pattern character literal. `x IN {…}` holds when x equals one of the values, `%@ IN dogs`
/// when the collection holds the object. A constant is converted to the other side's type where
/// Realm would (a number literal for a Float or Decimal128 property, a string for Data, UUID or
/// ObjectId), and a comparison with the key path on the right is flipped.
///
/// Not supported (each is a clear error): `MATCHES`, `SELF`, date literals. Nesting of
/// parentheses, `NOT` and `SUBQUERY` is limited to ``maxDepth``, a key path to
/// ``maxKeyPathDepth`` steps, and AND/OR chains build
/// balanced trees, so no input can exhaust the stack; every failure is a thrown
/// `StrataError(.invalidQuery)` naming the position.
enum PredicateParser {
    /// The deepest nesting of parentheses and NOTs accepted.
    static let maxDepth = 100
    /// The most steps a key path takes after its first part (`a.b.c` takes 2): as deep as
    /// values nest in a record (`ObjectFormat.maxNesting`).
    static let maxKeyPathDepth = ObjectFormat.maxNesting

    /// The query `format` describes for objects of `schema`, with `%@` and `%K` taking
    /// `arguments` in order.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` whose message names the offending token and
    ///   its column.
    static func parse(_ format: String, arguments: [Any], schema: ObjectSchema, schemas: SchemaSet) throws -> QueryNode {
        var state = State(tokens: try PredicateLexer.tokenize(format), arguments: arguments, schema: schema, schemas: schemas)
        return try state.parsePredicate()
    }

    /// The parser's position in the tokens and arguments.
    struct State {
        let tokens: [PredicateToken]
        let arguments: [Any]
        /// The class key paths start from: the queried one, or a SUBQUERY's element class.
        let schema: ObjectSchema
        let schemas: SchemaSet
        /// Inside a SUBQUERY: its `$variable` and the class of the elements it names.
        var variable: (name: String, schema: ObjectSchema)?
        var position = 0
        var nextArgument = 0
        var depth = 0

        init(tokens: [PredicateToken], arguments: [Any], schema: ObjectSchema, schemas: SchemaSet) {
            self.tokens = tokens
            self.arguments = arguments
            self.schema = schema
            self.schemas = schemas
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
            StrataError(.invalidQuery, "\(message) (at column \(token.column))")
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
                throw StrataError(.invalidQuery, "\(given) given but the predicate uses \(nextArgument) (%@ or %K)")
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
            case "TRUEPREDICATE": _ = advance(); return .constant(true)
            case "FALSEPREDICATE": _ = advance(); return .constant(false)
            default: return try parseComparison()
            }
        }

        // MARK: Comparisons

        static let comparisonSymbols: [String: QueryOperator] = [
            "==": .equal, "=": .equal, "!=": .notEqual, "<>": .notEqual, "<": .less, "<=": .lessOrEqual,
            "=<": .lessOrEqual, ">": .greater, ">=": .greaterOrEqual, "=>": .greaterOrEqual,
        ]
        static let stringKeywords: [String: QueryOperator] = [
            "BEGINSWITH": .beginsWith, "ENDSWITH": .endsWith, "CONTAINS": .contains, "LIKE": .like,
        ]
        static let quantifiers: [String: QueryQuantifier] = ["ANY": .any, "SOME": .any, "ALL": .all, "NONE": .none]

        mutating func parseComparison() throws -> QueryNode {
            var quantifier: QueryQuantifier?
            // A quantifier is a word before a key path; `any == nil` compares a property named so.
            if let word = keyword, let found = State.quantifiers[word], position + 1 < tokens.count,
               [.keyArgument].contains(tokens[position + 1].kind) || tokens[position + 1].isName {
                let quantifierToken = advance()
                quantifier = found
                let operand = try parseOperand()
                guard operand.kind?.isMultiple == true else {
                    throw error("\(quantifierToken.text.uppercased()) needs a list, set, map or backlinks key path, not \(operand.quoted)", at: quantifierToken)
                }
                return try parseOperator(after: operand, quantifier: found)
            }
            return try parseOperator(after: try parseOperand(), quantifier: quantifier ?? .any)
        }

        mutating func parseOperator(after lhs: Operand, quantifier: QueryQuantifier) throws -> QueryNode {
            let opToken = current
            if case .symbol(let symbol) = opToken.kind, let op = State.comparisonSymbols[symbol] {
                _ = advance()
                let options = try parseOptions()
                let rhs = try parseOperand()
                return try compare(op, lhs, rhs, options: options, quantifier: quantifier, at: opToken)
            }
            switch keyword {
            case let word? where State.stringKeywords[word] != nil:
                _ = advance()
                let options = try parseOptions()
                let rhs = try parseOperand()
                return try compare(State.stringKeywords[word]!, lhs, rhs, options: options, quantifier: quantifier, at: opToken)
            case "IN":
                _ = advance()
                let options = try parseOptions()
                if current.kind == .argument || isSymbol("{") {
                    let values = try parseList(after: opToken)
                    return try compare(.equal, lhs, list: values, options: options, quantifier: quantifier, at: opToken)
                }
                let collection = try parseOperand()
                guard collection.kind?.isMultiple == true else {
                    throw error("IN needs {…}, %@ or a list, set, map or backlinks key path, not \(collection.quoted)", at: collection)
                }
                return try compare(.equal, lhs, collection, options: options, quantifier: quantifier, at: opToken)
            case "BETWEEN":
                _ = advance()
                let values = try parseList(after: opToken)
                guard values.count == 2 else {
                    throw error("BETWEEN takes exactly two values, {lower, upper}, not \(values.count)", at: opToken)
                }
                return try compare(.between, lhs, list: values, options: [], quantifier: quantifier, at: opToken)
            default:
                let hint = lhs.isBoolProperty ? "; write '\(lhs.text) == true'" : ""
                throw error("expected a comparison operator after \(lhs.quoted) but found \(current.quoted)\(hint)", at: current)
            }
        }

        /// `[c]`, `[d]`, `[cd]` after an operator.
        mutating func parseOptions() throws -> QueryStringOptions {
            guard isSymbol("[") else { return [] }
            let open = advance()
            guard case .identifier(let letters) = current.kind,
                  !letters.isEmpty, letters.lowercased().allSatisfy({ $0 == "c" || $0 == "d" }) else {
                throw error("expected a comparison option [c], [d] or [cd] but found \(current.quoted)", at: current)
            }
            _ = advance()
            try expect("]", "']' to close the option opened at column \(open.column)")
            var options: QueryStringOptions = []
            if letters.lowercased().contains("c") { options.insert(.caseInsensitive) }
            if letters.lowercased().contains("d") { options.insert(.diacriticInsensitive) }
            return options
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
        if nodes.count <= 1 { return nodes.first ?? .constant(false) }
        let middle = nodes.startIndex + nodes.count / 2
        return combine(balanced(nodes[..<middle], combine), balanced(nodes[middle...], combine))
    }
}
