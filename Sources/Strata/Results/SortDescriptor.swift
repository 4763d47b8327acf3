/// A key path to sort results by and a direction, as Realm's:
///
/// ```swift
/// people.sorted(by: [SortDescriptor(keyPath: "dog.age", ascending: false), SortDescriptor(keyPath: "name")])
/// ```
///
/// The key path names a property, or a property through to-one links (`"dog.age"`).
public struct SortDescriptor: Hashable, Sendable {
    /// The key path to sort by.
    public let keyPath: String
    /// Whether smaller values come first.
    public let ascending: Bool

    /// Sorts by `keyPath`, smaller values first unless `ascending` is false.
    public init(keyPath: String, ascending: Bool = true) {
        self.keyPath = keyPath
        self.ascending = ascending
    }

    /// The same key path in the opposite direction.
    public func reversed() -> SortDescriptor { SortDescriptor(keyPath: keyPath, ascending: !ascending) }
}

extension SortDescriptor: ExpressibleByStringLiteral {
    /// Sorts ascending by the key path the literal names (`"name"`).
    public init(stringLiteral keyPath: String) { self.init(keyPath: keyPath) }
}
