import Foundation
import Strata

// The same classes at two schema versions, as an app ships them: V1 is what the stored data was
// written with, V2 what the new build declares. (Nested in enums: the class names, which the
// schema uses, are the same on both sides.)

enum V1 {
    final class Person: Object {
        @Persisted(primaryKey: true) var _id: Int
        @Persisted var firstName: String
        @Persisted var lastName: String
        @Persisted var yearsSinceBirth: Int
        @Persisted var nickname: String?
        @Persisted var score: Int
        @Persisted var dog: Dog?
        @Persisted var dogs: List<Dog>
        @Persisted var address: Address?
    }

    final class Dog: Object {
        @Persisted var name: String
        @Persisted var age: Int
    }

    final class Address: Object {
        @Persisted var city: String
    }

    final class Retired: Object {
        @Persisted var name: String
        @Persisted var dog: Dog?
    }

    static let types: [ObjectBase.Type] = [Person.self, Dog.self, Address.self, Retired.self]
}

enum V2 {
    /// Renamed (`yearsSinceBirth` → `age`, indexed now), combined (`firstName` + `lastName` →
    /// `name`), made required (`nickname`), changed type (`score` Int → String).
    final class Person: Object {
        @Persisted(primaryKey: true) var _id: Int
        @Persisted var name: String
        @Persisted(indexed: true) var age: Int
        @Persisted var nickname: String
        @Persisted var score: String
        @Persisted var dog: Dog?
        @Persisted var dogs: List<Dog>
        @Persisted var address: Address?
    }

    /// A primary key now (`name`).
    final class Dog: Object {
        @Persisted(primaryKey: true) var name: String
        @Persisted var age: Int
    }

    /// Embedded now.
    final class Address: EmbeddedObject {
        @Persisted var city: String
    }

    static let types: [ObjectBase.Type] = [Person.self, Dog.self, Address.self]
}

enum V3 {
    /// Address is top-level again.
    final class Person: Object {
        @Persisted(primaryKey: true) var _id: Int
        @Persisted var name: String
        @Persisted var address: Address?
    }

    final class Address: Object {
        @Persisted var city: String
        @Persisted(originProperty: "address") var residents: LinkingObjects<Person>
    }

    static let types: [ObjectBase.Type] = [Person.self, Address.self]
}
