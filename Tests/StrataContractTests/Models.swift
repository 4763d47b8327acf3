import Foundation
import Strata

// The tour's models (the object-layer issue's Dog, Person and Address), with the names the
// query contract uses.

final class Dog: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var breed: String?
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

enum Size: String, PersistableEnum { case small, large }

final class Person: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted(indexed: true) var name: String
    @Persisted var birthdate: Date
    @Persisted var dog: Dog?
    @Persisted var dogs: List<Dog>
    @Persisted var address: Address?
    @Persisted var pastAddresses: List<Address>
    @Persisted var nicknames: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var extra: AnyValue
    @Persisted var size: Size?
    @Persisted var height: Double
    @Persisted var photo: Data?
    @Persisted var balance: Decimal128
    @Persisted var ref: UUID
}

final class Address: EmbeddedObject {
    @Persisted var street: String?
    @Persisted var city: String?
}
