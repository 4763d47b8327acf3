/// One change of the kill workload. Objects are named by id; every operation the generator
/// makes is valid against the state it was made for.
public enum KillOperation: Equatable, Sendable {
    case addPerson(id: Int, name: String, age: Int, city: String?)
    case addPet(id: Int, name: String)
    case setBest(person: Int, pet: Int?)
    case appendPet(person: Int, pet: Int)
    case removePet(person: Int, index: Int)
    /// Replaces the embedded address with a new one, or removes it (nil).
    case setCity(person: Int, city: String?)
    /// Edits the city of the existing embedded address in place.
    case editCity(person: Int, city: String)
    case deletePet(Int)
    case deletePerson(Int)
    /// `add(_:update: .modified)` of a full copy of the person with a new name and age.
    case upsertPerson(id: Int, name: String, age: Int)
}
