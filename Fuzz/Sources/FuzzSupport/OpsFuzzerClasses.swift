// The model classes of the OpsFuzzer target and the pools its input bytes pick values from.
//
// OpsItem has a primary key, OpsNote has none (the harness gives each note a unique `serial`,
// set once, to find it again); both inherit the same properties from `OpsObject`, so the
// harness treats them alike. Links always point at OpsItems. OpsSpot is embedded (in `spot` and
// `spots`) and links to an OpsItem itself.

import Foundation
import Strata

/// What OpsItem and OpsNote share: every property the operations touch. Not registered itself:
/// its subclasses store these properties first, then their own.
public class OpsObject: Object {
    @Persisted(indexed: true) public var name: String
    @Persisted public var count: Int
    @Persisted public var weight: Double
    @Persisted public var link: OpsItem?
    @Persisted public var links: List<OpsItem>
    @Persisted public var spot: OpsSpot?
    @Persisted public var spots: List<OpsSpot>
    @Persisted public var scores: Map<String, Int>
    @Persisted public var extra: AnyValue
}

/// An object with a primary key, the target of every link.
public final class OpsItem: OpsObject {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(originProperty: "link") public var linkedBy: LinkingObjects<OpsItem>
    @Persisted(originProperty: "links") public var listedBy: LinkingObjects<OpsItem>
    @Persisted(originProperty: "link") public var notedBy: LinkingObjects<OpsNote>
}

/// An object without a primary key; `serial` is its identity for the harness.
public final class OpsNote: OpsObject {
    @Persisted public var serial: Int
}

/// An embedded object, stored inside its parent's record.
public final class OpsSpot: EmbeddedObject {
    @Persisted public var label: String
    @Persisted public var level: Int
    @Persisted public var item: OpsItem?
}

/// The values operations choose from (a byte modulo the pool's size). Each pool holds pairs
/// that are canonically equal but differ in their bytes (`twins`): Strata stores and compares
/// bytes, as Realm does, so the model keeps them apart.
public enum OpsPools {
    /// Strings for `name`, `label` and map keys; 4 and 5 are twins (precomposed and decomposed é).
    public static let strings: [String] = [
        "", "a", "Rex", "rex", "\u{E9}", "e\u{301}", "🐶", "a name longer than fifteen bytes",
    ]
    /// Doubles for `weight`; 6 and 7 are twins (0.0 and -0.0).
    public static let doubles: [Double] = [1.5, -2.25, 1e300, .infinity, .nan, .leastNonzeroMagnitude, 0.0, -0.0]
    /// Ints for `count`, `level` and map values.
    public static let ints: [Int] = [0, 1, -1, 42, Int.max, Int.min, 1 << 40, -7]
    /// AnyValues for `extra` (no objects: the harness keeps links to the typed properties).
    /// `nonisolated(unsafe)`: AnyValue is not Sendable (it may hold an object), these values
    /// hold none and are never changed.
    nonisolated(unsafe) public static let anyValues: [AnyValue] = [
        .none, .int(3), .string("Rex"), .double(2.5), .bool(true),
        .list([.int(1), .string("x"), .none]), .map(["k": .int(2), "l": .list([.bool(false)])]),
        .data(Data([0, 1, 2])), .date(Date(timeIntervalSince1970: 1e9)),
        .objectId(ObjectId("000000000000000000001111")!),
        .uuid(UUID(uuidString: "00000000-0000-0000-0000-000000000001")!),
        .decimal128(Decimal128(12)), .float(0.5), .list([]), .map([:]),
        .list([.list([.list([.int(7)])])]), nested(100), nested(101),
    ]
    /// The index of `nested(101)`, which no write may store (`.invalidValue`).
    public static let tooDeep = 17

    /// `levels` lists, each the only element of the one around it, around an Int: Strata
    /// stores values nested up to 100 levels deep, as Realm does.
    static func nested(_ levels: Int) -> AnyValue {
        (0..<levels).reduce(AnyValue.int(levels)) { inner, _ in .list([inner]) }
    }
    /// The number of primary keys items use (0..<itemIDs).
    public static let itemIDs = 8

    /// The indexes of the canonically equal strings.
    static let twinStrings: Set<Int> = [4, 5]
}
