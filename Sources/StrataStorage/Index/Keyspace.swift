/// A namespace of keys: each keyspace has its own set of keys, and a snapshot can list the keys
/// of one keyspace without looking at the others.
///
/// The object layer gives each class its own keyspace, so "every object of a class" is a scan of
/// one keyspace. `Keyspace` is an immutable value and is `Sendable`.
public struct Keyspace: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The keyspace's number as stored in each record.
    public let rawValue: UInt32

    /// Makes a keyspace from its number.
    @inlinable
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Makes a keyspace from its number.
    @inlinable
    public init(_ rawValue: UInt32) { self.rawValue = rawValue }

    public static func < (lhs: Keyspace, rhs: Keyspace) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { "keyspace \(rawValue)" }
}
