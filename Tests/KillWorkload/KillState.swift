/// The expected contents of a kill-workload database after some number of commits: what the
/// workload's operations leave, computed without a database.
public struct KillState: Equatable, Sendable {
    /// A person's stored properties, links by the target's id.
    public struct Person: Equatable, Sendable {
        public var name: String
        public var age: Int
        public var best: Int?
        public var pets: [Int]
        public var city: String?
    }

    /// The persons by id.
    public var persons: [Int: Person] = [:]
    /// The pets' names by id.
    public var pets: [Int: String] = [:]
    /// The number of the last commit applied (0: none).
    public var commit = 0
    /// The next id to hand out (persons and pets share the counter).
    public var nextId = 1
    /// The ids of every person and pet deleted so far (ids are never reused).
    public var deletedIds: Set<Int> = []

    public init() {}

    /// The contents after commits 1…`commit` of the workload of `seed`.
    public static func replayed(seed: UInt64, through commit: Int) -> KillState {
        var state = KillState()
        while state.commit < commit {
            let operations = state.nextOperations(seed: seed)
            state.apply(operations)
        }
        return state
    }

    /// Whether `other` holds the same objects as this state (ids, properties, commit number).
    public func sameContents(as other: KillState) -> Bool {
        persons == other.persons && pets == other.pets && commit == other.commit
    }

    /// A stable 64-bit digest of the contents (FNV-1a over a canonical rendering).
    public var digest: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String) {
            for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        mix("c\(commit)")
        for id in persons.keys.sorted() {
            let person = persons[id]!
            mix("P\(id):\(person.name):\(person.age):\(person.best ?? -1):\(person.pets):\(person.city ?? "-")")
        }
        for id in pets.keys.sorted() { mix("T\(id):\(pets[id]!)") }
        return hash
    }

    /// Applies one commit's operations and advances the commit number.
    public mutating func apply(_ operations: [KillOperation]) {
        for operation in operations { apply(operation) }
        commit += 1
    }

    private mutating func apply(_ operation: KillOperation) {
        switch operation {
        case .addPerson(let id, let name, let age, let city):
            persons[id] = Person(name: name, age: age, best: nil, pets: [], city: city)
            nextId = max(nextId, id + 1)
        case .addPet(let id, let name):
            pets[id] = name
            nextId = max(nextId, id + 1)
        case .setBest(let person, let pet): persons[person]?.best = pet
        case .appendPet(let person, let pet): persons[person]?.pets.append(pet)
        case .removePet(let person, let index): persons[person]?.pets.remove(at: index)
        case .setCity(let person, let city): persons[person]?.city = city
        case .editCity(let person, let city): persons[person]?.city = city
        case .deletePet(let pet):
            pets[pet] = nil
            deletedIds.insert(pet)
            for id in persons.keys {
                persons[id]!.pets.removeAll { $0 == pet }
                if persons[id]!.best == pet { persons[id]!.best = nil }
            }
        case .deletePerson(let person):
            persons[person] = nil
            deletedIds.insert(person)
        case .upsertPerson(let id, let name, let age):
            persons[id]?.name = name
            persons[id]?.age = age
        }
    }
}
