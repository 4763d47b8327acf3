// The model of `strata demo`: people who own dogs and live at an address.

import Strata

/// A person: an Int primary key, an indexed name, an embedded address and a list of dogs.
final class Person: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var address: Address?
    @Persisted var dogs: List<Dog>
}

/// A dog, known by its name; who owns it is a backlink.
final class Dog: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted var weight: Double
    @Persisted var walks: Int
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<Person>
}

/// Where a person lives, stored inside the person's record.
final class Address: EmbeddedObject {
    @Persisted var street: String
    @Persisted var city: String
}
