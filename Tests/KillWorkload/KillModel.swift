import Strata

/// A person of the kill workload: an indexed name, a to-one link, a list of links and an
/// embedded address.
public final class KillPerson: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(indexed: true) public var name: String
    @Persisted public var age: Int
    @Persisted public var best: KillPet?
    @Persisted public var pets: List<KillPet>
    @Persisted public var home: KillAddress?
}

/// A pet of the kill workload, with the backlinks of both of `KillPerson`'s links to it.
public final class KillPet: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted(originProperty: "pets") public var owners: LinkingObjects<KillPerson>
    @Persisted(originProperty: "best") public var fans: LinkingObjects<KillPerson>
}

/// The embedded address of a `KillPerson`.
public final class KillAddress: EmbeddedObject {
    @Persisted public var city: String
}

/// The number of the last workload commit, written by that commit (one object, id 0).
public final class KillProgress: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var commit: Int
}

/// What the checker writes after each reopen (one object, id 0), outside the workload's state.
public final class KillProbe: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var checks: Int
}

/// The classes of a kill-workload database.
public let killObjectTypes: [ObjectBase.Type] = [
    KillPerson.self, KillPet.self, KillAddress.self, KillProgress.self, KillProbe.self,
]
