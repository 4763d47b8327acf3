import StrataStorage

// Splits an NSPredicate-format string into tokens for PredicateParser. Never traps: anything it
// cannot read becomes a StrataError(.invalidQuery) naming the character and its column.

/// One token of a predicate format string.
struct PredicateToken {
    enum Kind: Equatable {
        /// A property name, a key path or a keyword (the parser matches keywords ignoring case):
        /// `.`-separated parts, each a name, a `@` operator (`dogs.@count`, `@links.Person.dogs`)
        /// or, first, a `$` variable (`$d.age`).
        case identifier(String)
        /// `#name`: always a property name, even when `name` is a keyword.
        case escapedIdentifier(String)
        /// An integer literal as written, with any `0x`/`0o`/`0b` prefix.
        case integer(String)
        /// A literal with a fraction or an exponent, as written.
        case decimal(String)
        /// A quoted string, escapes resolved.
        case string(String)
        /// `%@`.
        case argument
        /// `%K`.
        case keyArgument
        /// An operator or punctuation: `==`, `<=`, `&&`, `(`, `{`, `[`, `,`, `-`…
        case symbol(String)
        case end
    }

    let kind: Kind
    /// 1-based, in Unicode scalars.
    let column: Int
    /// The source text, for messages.
    let text: String

    /// Whether the token is a property name or key path (not a keyword check: `SUBQUERY` is one).
    var isName: Bool {
        switch kind {
        case .identifier, .escapedIdentifier: return true
        default: return false
        }
    }

    /// How messages quote this token: `'text'`, or "the end of the predicate".
    var quoted: String {
        if kind == .end { return "the end of the predicate" }
        return "'" + PredicateLexer.abbreviate(text) + "'"
    }
}

enum PredicateLexer {
    private static let twoCharacterSymbols: Set<String> = ["==", "!=", "<>", "<=", "=<", ">=", "=>", "&&", "||"]
    private static let oneCharacterSymbols: Set<Unicode.Scalar> = ["=", "<", ">", "!", "(", ")", "{", "}", ",", "[", "]", "-", "+", "."]
    /// The format specifiers `%@` stands for; NSPredicate reads `%d %i %f %s` as typed values.
    private static let valueSpecifiers: Set<Unicode.Scalar> = ["@", "d", "i", "f", "s"]

    /// The tokens of `format`, ending with `.end`.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` for an unterminated string, a malformed
    ///   number, an unsupported `%` specifier, or a character that starts no token.
    static func tokenize(_ format: String) throws -> [PredicateToken] {
        let chars = Array(format.unicodeScalars)
        var tokens: [PredicateToken] = []
        var i = 0
        func token(_ kind: PredicateToken.Kind, from start: Int) {
            tokens.append(PredicateToken(kind: kind, column: start + 1, text: text(chars[start..<i])))
        }
        while i < chars.count {
            let c = chars[i]
            let start = i
            if c.properties.isWhitespace {
                i += 1
            } else if isIdentifierStart(c) {
                i = scanIdentifier(chars, from: i)
                token(.identifier(text(chars[start..<i])), from: start)
            } else if c == "#", i + 1 < chars.count, isIdentifierStart(chars[i + 1]) {
                i = scanIdentifier(chars, from: i + 1)
                token(.escapedIdentifier(text(chars[(start + 1)..<i])), from: start)
            } else if isDigit(c) {
                let (end, isDecimal) = try scanNumber(chars, from: i)
                i = end
                let digits = text(chars[start..<i])
                token(isDecimal ? .decimal(digits) : .integer(digits), from: start)
            } else if c == "'" || c == "\"" {
                let (end, value) = try scanString(chars, from: i)
                i = end
                token(.string(value), from: start)
            } else if c == "%" {
                let next = i + 1 < chars.count ? chars[i + 1] : nil
                guard let next, next == "K" || valueSpecifiers.contains(next) else {
                    let spec = next.map { "%" + String($0) } ?? "%"
                    throw error("unsupported format specifier '\(escaped(spec))'; use %@ (or %d %i %f %s) for a value or %K for a property name", at: start)
                }
                i += 2
                token(next == "K" ? .keyArgument : .argument, from: start)
            } else if c == "$" || c == "@", i + 1 < chars.count, isIdentifierStart(chars[i + 1]) {
                i = scanIdentifier(chars, from: i + 1)
                token(.identifier(text(chars[start..<i])), from: start)
            } else if i + 1 < chars.count, twoCharacterSymbols.contains(text(chars[i...(i + 1)])) {
                i += 2
                token(.symbol(text(chars[start..<i])), from: start)
            } else if oneCharacterSymbols.contains(c) {
                i += 1
                token(.symbol(String(c)), from: start)
            } else {
                throw error("unexpected character '\(escaped(String(c)))'", at: start)
            }
        }
        tokens.append(PredicateToken(kind: .end, column: chars.count + 1, text: ""))
        return tokens
    }

    static func error(_ message: String, at index: Int) -> StrataError {
        StrataError(.invalidQuery, "\(message) (at column \(index + 1))")
    }

    /// `text` with control characters escaped, cut to 40 characters.
    static func abbreviate(_ text: String) -> String {
        let cut = text.count > 40 ? String(text.prefix(40)) + "…" : text
        return escaped(cut)
    }

    private static func escaped(_ text: String) -> String {
        text.unicodeScalars.map { $0.properties.generalCategory == .control ? $0.escaped(asASCII: true) : String($0) }.joined()
    }

    private static func isIdentifierStart(_ c: Unicode.Scalar) -> Bool { c == "_" || c.properties.isAlphabetic }
    private static func isIdentifierPart(_ c: Unicode.Scalar) -> Bool {
        c == "_" || c.properties.isAlphabetic || c.properties.numericType != nil
    }
    private static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }
    private static func isHexDigit(_ c: Unicode.Scalar) -> Bool { c.isASCII && Character(c).isHexDigit }

    /// The text of some scalars of the format.
    private static func text(_ scalars: ArraySlice<Unicode.Scalar>) -> String {
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars)
        return text
    }

    /// The end of an identifier starting at `start`, with `.`-separated parts.
    private static func scanIdentifier(_ chars: [Unicode.Scalar], from start: Int) -> Int {
        var i = start
        while i < chars.count {
            if isIdentifierPart(chars[i]) {
                i += 1
            } else if chars[i] == ".", i + 1 < chars.count, isIdentifierStart(chars[i + 1]) {
                i += 2
            } else if chars[i] == ".", i + 2 < chars.count, chars[i + 1] == "@", isIdentifierStart(chars[i + 2]) {
                i += 3
            } else {
                break
            }
        }
        return i
    }

    /// The end of a number starting at `start`, and whether it has a fraction or exponent.
    private static func scanNumber(_ chars: [Unicode.Scalar], from start: Int) throws -> (Int, Bool) {
        var i = start
        var isDecimal = false
        func digits(_ accept: (Unicode.Scalar) -> Bool) { while i < chars.count, accept(chars[i]) { i += 1 } }
        if chars[i] == "0", i + 1 < chars.count, let radix = ["x": 16, "X": 16, "o": 8, "O": 8, "b": 2, "B": 2][chars[i + 1]] {
            i += 2
            let digitsStart = i
            digits { isHexDigit($0) && Int(String($0), radix: radix) != nil }
            if i == digitsStart { i = start + 1 }
        } else {
            digits(isDigit)
            if i + 1 < chars.count, chars[i] == ".", isDigit(chars[i + 1]) {
                isDecimal = true
                i += 1
                digits(isDigit)
            }
            if i < chars.count, chars[i] == "e" || chars[i] == "E" {
                var j = i + 1
                if j < chars.count, chars[j] == "+" || chars[j] == "-" { j += 1 }
                if j < chars.count, isDigit(chars[j]) {
                    isDecimal = true
                    i = j
                    digits(isDigit)
                }
            }
        }
        let valid = i > start && !(i < chars.count && (isIdentifierPart(chars[i]) || chars[i] == "."))
        if !valid {
            var end = i
            while end < chars.count, isIdentifierPart(chars[end]) || chars[end] == "." { end += 1 }
            throw error("malformed number '\(abbreviate(text(chars[start..<max(end, start + 1)])))'", at: start)
        }
        return (i, isDecimal)
    }

    /// The end of a quoted string starting at `start` (its opening quote), and its value.
    private static func scanString(_ chars: [Unicode.Scalar], from start: Int) throws -> (Int, String) {
        let quote = chars[start]
        var value = ""
        var i = start + 1
        while i < chars.count {
            let c = chars[i]
            if c == quote { return (i + 1, value) }
            if c == "\\" {
                guard i + 1 < chars.count else { break }
                let escape = chars[i + 1]
                i += 2
                switch escape {
                case "n": value.append("\n")
                case "t": value.append("\t")
                case "r": value.append("\r")
                case "0": value.append("\0")
                case "u":
                    let hex = text(chars[i..<min(i + 4, chars.count)])
                    guard hex.count == 4, hex.allSatisfy(\.isHexDigit), let code = UInt32(hex, radix: 16),
                          let scalar = Unicode.Scalar(code) else {
                        throw error("invalid escape '\\u\(abbreviate(hex))' in a string", at: i - 2)
                    }
                    value.unicodeScalars.append(scalar)
                    i += 4
                default: value.unicodeScalars.append(escape)
                }
            } else {
                value.unicodeScalars.append(c)
                i += 1
            }
        }
        throw error("unterminated string \(abbreviate(text(chars[start...])))", at: start)
    }
}
