import Foundation

/// How a typed string comparison treats case and diacritics (`[c]`, `[d]` in string
/// predicates), as Realm's `StringOptions`.
///
/// A value; `Sendable`.
public struct StringOptions: OptionSet, Sendable {
    public let rawValue: Int8
    /// Makes options from their raw bits.
    public init(rawValue: Int8) { self.rawValue = rawValue }
    /// Upper and lower case compare equal.
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// Letters compare equal without their diacritics (`é` matches `e`).
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    var queryOptions: QueryStringOptions {
        var options: QueryStringOptions = []
        if contains(.caseInsensitive) { options.insert(.caseInsensitive) }
        if contains(.diacriticInsensitive) { options.insert(.diacriticInsensitive) }
        return options
    }
}

extension Query where T == String {
    private func string(_ op: QueryOperator, _ value: String, _ options: StringOptions) -> Query<Bool> {
        _comparison(op, .constant(.string(value)), options: options.queryOptions)
    }

    /// The string starts with `prefix`.
    public func starts(with prefix: String, options: StringOptions = []) -> Query<Bool> { string(.beginsWith, prefix, options) }
    /// The string ends with `suffix`.
    public func ends(with suffix: String, options: StringOptions = []) -> Query<Bool> { string(.endsWith, suffix, options) }
    /// The string contains `other`.
    public func contains(_ other: String, options: StringOptions = []) -> Query<Bool> { string(.contains, other, options) }
    /// The string equals `other` under `options`.
    public func equals(_ other: String, options: StringOptions = []) -> Query<Bool> { string(.equal, other, options) }
    /// The string matches a `LIKE` pattern: `?` one character, `*` any run.
    public func like(_ pattern: String, caseInsensitive: Bool = false) -> Query<Bool> {
        string(.like, pattern, caseInsensitive ? .caseInsensitive : [])
    }

    /// The string starts with `prefix`.
    public func starts(with prefix: String, caseInsensitive: Bool) -> Query<Bool> {
        starts(with: prefix, options: caseInsensitive ? .caseInsensitive : [])
    }
    /// The string ends with `suffix`.
    public func ends(with suffix: String, caseInsensitive: Bool) -> Query<Bool> {
        ends(with: suffix, options: caseInsensitive ? .caseInsensitive : [])
    }
    /// The string contains `other`.
    public func contains(_ other: String, caseInsensitive: Bool) -> Query<Bool> {
        contains(other, options: caseInsensitive ? .caseInsensitive : [])
    }
}

extension Query where T == String? {
    /// The string starts with `prefix` (nil does not).
    public func starts(with prefix: String, options: StringOptions = []) -> Query<Bool> {
        _comparison(.beginsWith, .constant(.string(prefix)), options: options.queryOptions)
    }
    /// The string ends with `suffix` (nil does not).
    public func ends(with suffix: String, options: StringOptions = []) -> Query<Bool> {
        _comparison(.endsWith, .constant(.string(suffix)), options: options.queryOptions)
    }
    /// The string contains `other` (nil does not).
    public func contains(_ other: String, options: StringOptions = []) -> Query<Bool> {
        _comparison(.contains, .constant(.string(other)), options: options.queryOptions)
    }
    /// The string matches a `LIKE` pattern (nil does not).
    public func like(_ pattern: String, caseInsensitive: Bool = false) -> Query<Bool> {
        _comparison(.like, .constant(.string(pattern)), options: caseInsensitive ? .caseInsensitive : [])
    }
}
