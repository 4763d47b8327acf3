import Foundation
import StrataStorage

@testable import Strata

// The model classes most object-layer tests share.

final class Dog: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var breed: String?
}

final class Person: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted(indexed: true) var name: String
    @Persisted var birthdate: Date
    @Persisted var dog: Dog?
    @Persisted var height: Double
    @Persisted var photo: Data?
    @Persisted var balance: Decimal128
    @Persisted var ref: UUID
    @Persisted var small: Int8
    @Persisted var medium: Int16?
    @Persisted var large: Int64
    @Persisted var ratio: Float
    @Persisted var active: Bool
    var scratch = 0
}

final class Counter: Object {
    @Persisted var label: String = "unnamed"
    @Persisted var value: Int32
}
