/// The `LIKE` operator of string predicates: `?` matches exactly one character, `*` any run of
/// characters (including none), and a backslash makes the next pattern character literal
/// (`\*`, `\?`, `\\`; a trailing lone backslash matches a backslash). Everything else matches
/// itself. Characters are Unicode scalars, so `?` takes one code point and literals compare as
/// stored (no canonical equivalence: `é` written as one scalar does not match `e` and a
/// combining accent), as Realm's string operators do; case-insensitive matching compares
/// `lowercased()` forms.
///
/// Matching is iterative (no recursion) and O(text × pattern) in the worst case.
enum LikePattern {
    private enum Element: Equatable {
        case literal(Unicode.Scalar)
        case one
        case any
    }

    /// Whether `text` matches `pattern` as a whole.
    static func matches(_ text: String, _ pattern: String, caseInsensitive: Bool) -> Bool {
        let text = Array((caseInsensitive ? text.lowercased() : text).unicodeScalars)
        let pattern = compile(caseInsensitive ? pattern.lowercased() : pattern)
        var t = 0, p = 0
        // The last `*` seen, and the text position it currently absorbs up to.
        var star: Int?
        var starText = 0
        while t < text.count {
            if p < pattern.count, pattern[p] == .one || pattern[p] == .literal(text[t]) {
                t += 1
                p += 1
            } else if p < pattern.count, pattern[p] == .any {
                star = p
                starText = t
                p += 1
            } else if let star {
                starText += 1
                t = starText
                p = star + 1
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[p] == .any { p += 1 }
        return p == pattern.count
    }

    /// A pattern matching exactly `literal`: its wildcards and backslashes escaped.
    static func escape(_ literal: String) -> String {
        var escaped = ""
        for character in literal {
            if character == "*" || character == "?" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    private static func compile(_ pattern: String) -> [Element] {
        var elements: [Element] = []
        var escaping = false
        for character in pattern.unicodeScalars {
            if escaping {
                elements.append(.literal(character))
                escaping = false
            } else if character == "\\" {
                escaping = true
            } else if character == "*" {
                if elements.last != .any { elements.append(.any) }
            } else {
                elements.append(character == "?" ? .one : .literal(character))
            }
        }
        if escaping { elements.append(.literal("\\")) }
        return elements
    }
}
