import Strata

/// The object of the corruption sweep's database: every kind of property the object layer
/// stores (an indexed String, a to-one link and its backlink, a List of links, an embedded
/// object, a Map, an AnyValue).
public final class SweepItem: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(indexed: true) public var name: String
    @Persisted public var score: Double
    @Persisted public var friend: SweepItem?
    @Persisted public var others: List<SweepItem>
    @Persisted public var place: SweepPlace?
    @Persisted public var attributes: Map<String, Int>
    @Persisted public var extra: AnyValue
    @Persisted(originProperty: "friend") public var friendOf: LinkingObjects<SweepItem>
}

/// The embedded object of a `SweepItem`.
public final class SweepPlace: EmbeddedObject {
    @Persisted public var city: String
}

/// The number of the last commit of the sweep's fixture (one object, id 0).
public final class SweepMark: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var commit: Int
}

/// The classes of the sweep's database.
public let sweepObjectTypes: [ObjectBase.Type] = [SweepItem.self, SweepPlace.self, SweepMark.self]
