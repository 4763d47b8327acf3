import Strata

extension KillDatabase {
    /// The workload's state as `db` holds it (`nextId` and `deletedIds` are not stored and are
    /// left empty).
    public static func readState(_ db: Database) -> KillState {
        var state = KillState()
        state.commit = db.object(ofType: KillProgress.self, forPrimaryKey: 0)?.commit ?? 0
        for person in db.objects(KillPerson.self) {
            state.persons[person.id] = KillState.Person(
                name: person.name, age: person.age, best: person.best?.id,
                pets: person.pets.map(\.id), city: person.home?.city)
        }
        for pet in db.objects(KillPet.self) { state.pets[pet.id] = pet.name }
        return state
    }

    /// Every disagreement between links and backlinks, through the public API: each pet's
    /// `owners` must be exactly the persons whose `pets` hold it, and its `fans` exactly those
    /// whose `best` it is. Empty when they agree.
    public static func backlinkProblems(_ db: Database) -> [String] {
        var owners: [Int: Set<Int>] = [:]
        var fans: [Int: Set<Int>] = [:]
        var problems: [String] = []
        for person in db.objects(KillPerson.self) {
            for pet in person.pets { owners[pet.id, default: []].insert(person.id) }
            if let best = person.best { fans[best.id, default: []].insert(person.id) }
        }
        for pet in db.objects(KillPet.self) {
            let linkedOwners = Set(pet.owners.map(\.id))
            let linkedFans = Set(pet.fans.map(\.id))
            if linkedOwners != owners[pet.id, default: []] {
                problems.append("pet \(pet.id): owners \(linkedOwners.sorted()), lists \(owners[pet.id, default: []].sorted())")
            }
            if linkedFans != fans[pet.id, default: []] {
                problems.append("pet \(pet.id): fans \(linkedFans.sorted()), best of \(fans[pet.id, default: []].sorted())")
            }
            owners[pet.id] = nil
            fans[pet.id] = nil
        }
        for (pet, persons) in owners.merging(fans, uniquingKeysWith: { $0.union($1) }) {
            problems.append("persons \(persons.sorted()) link to pet \(pet), which does not exist")
        }
        return problems
    }
}
