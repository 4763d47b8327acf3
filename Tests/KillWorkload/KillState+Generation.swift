@_spi(Testing) import StrataStorage

extension KillState {
    /// The operations of commit `commit + 1` of the workload of `seed`: one to four changes,
    /// drawn from a generator seeded by the seed and the commit number, each valid against the
    /// state the ones before it leave.
    public func nextOperations(seed: UInt64) -> [KillOperation] {
        var random = SplitMix64(seed: seed ^ (UInt64(commit + 1) &* 0xd6e8_feb8_6659_fd93))
        var scratch = self
        var operations: [KillOperation] = []
        for _ in 0..<Int.random(in: 1...4, using: &random) {
            let operation = scratch.randomOperation(using: &random)
            operations.append(operation)
            scratch.apply([operation])
        }
        return operations
    }

    private func randomOperation(using random: inout SplitMix64) -> KillOperation {
        let personIds = persons.keys.sorted()
        let petIds = pets.keys.sorted()
        let name = "n\(Int.random(in: 0..<12, using: &random))"
        let age = Int.random(in: 0..<100, using: &random)
        let city = "c\(Int.random(in: 0..<50, using: &random))"
        // Grow until there is something to work on; then mostly edit, sometimes delete.
        if personIds.count < 3 || Int.random(in: 0..<10, using: &random) == 0 {
            return .addPerson(id: nextId, name: name, age: age, city: Bool.random(using: &random) ? city : nil)
        }
        if petIds.count < 3 || Int.random(in: 0..<8, using: &random) == 0 {
            return .addPet(id: nextId, name: name)
        }
        let person = personIds.randomElement(using: &random)!
        let pet = petIds.randomElement(using: &random)!
        let current = persons[person]!
        switch Int.random(in: 0..<10, using: &random) {
        case 0: return .setBest(person: person, pet: Bool.random(using: &random) ? pet : nil)
        case 1, 2:
            if current.pets.count < 6 { return .appendPet(person: person, pet: pet) }
            return .removePet(person: person, index: Int.random(in: 0..<current.pets.count, using: &random))
        case 3:
            if current.pets.isEmpty { return .appendPet(person: person, pet: pet) }
            return .removePet(person: person, index: Int.random(in: 0..<current.pets.count, using: &random))
        case 4: return .setCity(person: person, city: Bool.random(using: &random) ? city : nil)
        case 5:
            if current.city == nil { return .setCity(person: person, city: city) }
            return .editCity(person: person, city: city)
        case 6: return petIds.count > 4 ? .deletePet(pet) : .addPet(id: nextId, name: name)
        case 7: return personIds.count > 5 ? .deletePerson(person) : .upsertPerson(id: person, name: name, age: age)
        default: return .upsertPerson(id: person, name: name, age: age)
        }
    }
}
