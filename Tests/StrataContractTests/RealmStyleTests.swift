import Foundation
import Strata
import XCTest

// The Swift examples of the seed pages (the brief's `shared/seeds`), written as a Realm user writes them,
// with `import RealmSwift` → `import Strata`, `Realm` → `Database` and `AnyRealmValue` →
// `AnyValue` only. Each page's models sit in an enum named for the example, because several
// examples declare their own `Dog` and `Person` (and the tour's models use those names in this
// module). The assertions are what Realm gives.
//
// Examples that cannot compile as written, and why:
// - Seed 000 (Realm, Spanish): its Swift models lost their `@Persisted` attributes in the page's
//   text (`(primaryKey: true) var _id: ObjectId`); restored below. Its legacy example
//   (`@objc dynamic var`, `override static func primaryKey()`, `let tasks = List<Task>()`)
//   needs the Objective-C runtime, which Linux lacks; its `let` collection is refused at open
//   (`testLegacyCollectionWithoutPersistedIsRefusedAtOpen`).
// - Seed 001 (Realm, Japanese): every model is the legacy `@objc dynamic` syntax, with
//   `RealmOptional`, `ignoredProperties()` and `indexedProperties()` overrides: not Swift on
//   Linux, and superseded by `@Persisted(indexed:)` and non-`@Persisted` properties (ignored,
//   `testPlainPropertiesAreNotStored`).
// - Seed 003 (Realm, Korean): `RealmCollection`, `AnyRealmCollection` and `_ObjcBridgeable`
//   (Strata has `Results`, `List`… and no type-erased collection), and the type projections
//   (`CustomPersistable`, `FailableCustomPersistable`, `CLLocationCoordinate2D`, a `URL`
//   property) are not Strata API. The `Location(value: [latitude, longitude])` they build
//   compiles and is tested below.
// - Seed 004 is ObjectBox's (`Entity`, `ToOne`, `ToMany`, `Box`), not Realm's.
// - Strata's `add`, `create`, `delete` and `deleteAll` throw (Realm's raise Objective-C
//   exceptions), so calls to them inside `write { }` take a `try`.
// - Every page opens `try! Realm()`: a Strata database needs a `Configuration` with its
//   directory and its object types (Linux cannot list a program's classes).

/// Seed 002: "To define a Realm object, derive a class from Object."
enum Seed002Models {
    class Dog: Object {
        @Persisted(primaryKey: true) var _id = ObjectId()
        @Persisted var name = ""
        @Persisted var age = 0
    }
    class Person: Object {
        @Persisted(primaryKey: true) var _id = ObjectId()
        @Persisted var name = ""
    }
}

/// Seed 002: to-one, to-many and inverse relationships.
enum Seed002Relationships {
    class Dog: Object {
        @Persisted(primaryKey: true) var _id = ObjectId()
        @Persisted var name = ""
        @Persisted var age = 0
        // The backlink to the `Person` who has this `Dog`.
        @Persisted(originProperty: "dogs") var person: LinkingObjects<Person>
    }
    class Person: Object {
        @Persisted(primaryKey: true) var _id = ObjectId()
        @Persisted var name = ""
        // To-one relationship
        @Persisted var dog: Dog?
        // To-many relationship - a person can have many dogs
        @Persisted var dogs: List<Dog>
    }
}

/// Seeds 000 and 002: embedded objects, with the club and its members.
enum Seed002Embedded {
    class Dog: Object {
        @Persisted var name = ""
    }
    class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        // To-many relationship - a person can have many dogs
        @Persisted var dogs: List<Dog>
        // Inverse relationship - a person can be a member of many clubs
        @Persisted(originProperty: "members") var clubs: LinkingObjects<DogClub>
        // Embed a single object.
        // Embedded object properties must be marked optional.
        @Persisted var address: Address?
        convenience init(name: String, address: Address) {
            self.init()
            self.name = name
            self.address = address
        }
    }
    class DogClub: Object {
        @Persisted var name = ""
        @Persisted var members: List<Person>
        // DogClub has an array of regional office addresses.
        // These are embedded objects.
        @Persisted var regionalOfficeAddresses: List<Address>
        convenience init(name: String, addresses: [Address]) {
            self.init()
            self.name = name
            self.regionalOfficeAddresses.append(objectsIn: addresses)
        }
    }
    class Address: EmbeddedObject {
        @Persisted var street: String?
        @Persisted var city: String?
        @Persisted var country: String?
        @Persisted var postalCode: String?
    }
}

/// Seed 000: the inverse relationship of users and tasks (`@Persisted` restored).
enum Seed000Tasks {
    class User: Object {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var _partition: String = ""
        @Persisted var name: String = ""
        // A user can have many tasks.
        @Persisted var tasks: List<Task>
    }
    class Task: Object {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var _partition: String = ""
        @Persisted var text: String = ""
        // Backlink to the user. This is automatically updated whenever
        // this task is added to or removed from a user's task list.
        @Persisted(originProperty: "tasks") var assignee: LinkingObjects<User>
    }
}

/// Seed 000's legacy task model, its `let` list kept (the `@objc dynamic` attributes and the
/// `primaryKey()` override removed: they need the Objective-C runtime).
enum Seed000Legacy {
    class User: Object {
        @Persisted var name: String = ""
        let tasks = List<Task>()
    }
    class Task: Object {
        @Persisted var text: String = ""
    }
}

/// Seed 001's transient property: a property without `@Persisted` is not stored.
enum Seed001Ignored {
    class Team: Object {
        @Persisted var name: String = ""
        var tmpData = 0
    }
}

/// Seed 003: the supported property types.
enum Seed003Types {
    class Dog: Object {
        @Persisted var name = ""
        @Persisted var currentCity = ""
        @Persisted var citiesVisited: MutableSet<String>
        // Map of city name -> favorite park in that city
        @Persisted var favoriteParksByCity: Map<String, String>
        @Persisted var companion: AnyValue
    }
    class CustomGeoPoint: EmbeddedObject {
        @Persisted private var type: String = "Point"
        @Persisted private var coordinates: List<Double>
        public var latitude: Double { return coordinates[1] }
        public var longitude: Double { return coordinates[0] }
        convenience init(_ latitude: Double, _ longitude: Double) {
            self.init()
            // Longitude comes first in the coordinates array of a GeoJson document
            coordinates.append(objectsIn: [longitude, latitude])
        }
    }
    class Place: Object {
        @Persisted var name = ""
        @Persisted var point: CustomGeoPoint?
        @Persisted var location: Location?
    }
    public class Location: EmbeddedObject {
        @Persisted var latitude: Double
        @Persisted var longitude: Double
    }
}

final class RealmStyleTests: ContractTestCase {
    private func open(_ types: [ObjectBase.Type]) throws -> Database {
        try Database(configuration: Database.Configuration(directory: directory, objectTypes: types))
    }

    func testDefineAndWriteObjects() throws {
        typealias Dog = Seed002Models.Dog
        typealias Person = Seed002Models.Person
        let realm = try open([Dog.self, Person.self])
        let dog = Dog(value: ["name": "Rex", "age": 3])
        try realm.write {
            try realm.add(dog)
            _ = try realm.create(Person.self, value: ["name": "Ann"])
        }
        XCTAssertEqual(realm.objects(Dog.self).first?.name, "Rex")
        XCTAssertEqual(realm.object(ofType: Dog.self, forPrimaryKey: dog._id), dog)
        XCTAssertEqual(realm.objects(Person.self).count, 1)
        XCTAssertEqual(Dog.className(), "Dog")

        // Update by primary key, only the properties given.
        try realm.write { try realm.create(Dog.self, value: ["_id": dog._id, "age": 4], update: .modified) }
        XCTAssertEqual(dog.age, 4)
        XCTAssertEqual(dog.name, "Rex")

        try realm.write { try realm.delete(realm.objects(Dog.self).where { $0.age > 3 }) }
        XCTAssertEqual(realm.objects(Dog.self).count, 0)
        try realm.write { try realm.deleteAll() }
        XCTAssertTrue(realm.objects(Person.self).isEmpty)
    }

    func testRelationships() throws {
        typealias Dog = Seed002Relationships.Dog
        typealias Person = Seed002Relationships.Person
        let realm = try open([Dog.self, Person.self])
        // Realm's `ObjectId()` is the all-zero id: each dog gets a generated one.
        let person = Person(value: [
            "name": "Ann",
            "dogs": [["_id": ObjectId.generate(), "name": "Rex", "age": 3], ["_id": ObjectId.generate(), "name": "Fido", "age": 12]],
        ])
        person.dog = person.dogs.first
        try realm.write { try realm.add(person) }
        XCTAssertEqual(realm.objects(Dog.self).count, 2)
        let rex = try XCTUnwrap(realm.objects(Dog.self).where { $0.name == "Rex" }.first)
        XCTAssertEqual(rex.person.first, person)
        XCTAssertEqual(person.dog, rex, "the same stored dog, another accessor")
        XCTAssertEqual(person.dogs.firstIndex(of: rex), 0)
        XCTAssertTrue(realm.objects(Person.self).filter("ANY dogs.age > 10").contains(person))

        // Setting a to-one relationship to nil removes the connection; the dog stays.
        try realm.write { person.dog = nil }
        XCTAssertNil(person.dog)
        XCTAssertEqual(realm.objects(Dog.self).count, 2)
    }

    func testEmbeddedObjectsLiveAndDieWithTheirParent() throws {
        typealias Person = Seed002Embedded.Person
        typealias DogClub = Seed002Embedded.DogClub
        typealias Address = Seed002Embedded.Address
        let realm = try open([Seed002Embedded.Dog.self, Person.self, DogClub.self, Address.self])
        let ann = Person(name: "Ann", address: Address(value: ["1 Main St", "Lyon", "France", "69001"]))
        let club = DogClub(name: "Club", addresses: [Address(value: ["city": "Nice"]), Address(value: ["city": "Paris"])])
        club.members.append(ann)
        try realm.write { try realm.add(club) }
        XCTAssertEqual(ann.address?.postalCode, "69001")
        XCTAssertEqual(ann.clubs.first?.name, "Club")
        XCTAssertEqual(club.regionalOfficeAddresses.map { $0.city ?? "" }, ["Nice", "Paris"])
        let office = try XCTUnwrap(club.regionalOfficeAddresses.first)
        try realm.write { try realm.delete(club) }
        XCTAssertTrue(office.isInvalidated, "embedded objects are deleted with their parent")
        XCTAssertEqual(realm.objects(Person.self).count, 1, "a linked object is not")
    }

    func testInverseRelationshipOfTasks() throws {
        typealias User = Seed000Tasks.User
        typealias Task = Seed000Tasks.Task
        let realm = try open([User.self, Task.self])
        let user = User(value: ["name": "Ann", "tasks": [["text": "walk"], ["text": "feed"]]])
        try realm.write { try realm.add(user) }
        let task = try XCTUnwrap(realm.objects(Task.self).where { $0.text == "feed" }.first)
        XCTAssertEqual(task.assignee.first, user)
        try realm.write { user.tasks.removeAll() }
        XCTAssertTrue(task.assignee.isEmpty)
    }

    func testLegacyCollectionWithoutPersistedIsRefusedAtOpen() {
        XCTAssertThrowsError(try open([Seed000Legacy.User.self, Seed000Legacy.Task.self])) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidSchema)
            XCTAssertTrue("\(error)".contains("User.tasks"), "\(error)")
        }
    }

    func testPlainPropertiesAreNotStored() throws {
        typealias Team = Seed001Ignored.Team
        let realm = try open([Team.self])
        let team = Team(value: ["name": "A"])
        team.tmpData = 5
        try realm.write { try realm.add(team) }
        XCTAssertEqual(realm.objects(Team.self).first?.tmpData, 0, "another accessor: not stored")
    }

    func testSupportedTypes() throws {
        typealias Dog = Seed003Types.Dog
        let realm = try open([Dog.self, Seed003Types.Place.self, Seed003Types.CustomGeoPoint.self, Seed003Types.Location.self])
        // Percent encode . or $ characters to use them in map keys
        let encodedMapKey = "New York%2EBrooklyn"
        let dog = Dog(value: ["name": "Rex", "currentCity": "Lyon", "citiesVisited": ["Lyon", "Nice", "Lyon"], "companion": 3])
        dog.favoriteParksByCity[encodedMapKey] = "Prospect Park"
        try realm.write { try realm.add(dog) }
        XCTAssertEqual(dog.citiesVisited.count, 2)
        XCTAssertEqual(dog.favoriteParksByCity.keys, [encodedMapKey])
        XCTAssertEqual(dog.companion.intValue, 3)
        XCTAssertNil(dog.companion.doubleValue)
        XCTAssertEqual(realm.objects(Dog.self).filter("companion == 3.0").count, 1)
        XCTAssertThrowsError(try realm.write { dog.favoriteParksByCity["New York.Brooklyn"] = "x" })

        let place = Seed003Types.Place(value: ["name": "HQ", "point": Seed003Types.CustomGeoPoint(40.75, 73.98)])
        place.location = Seed003Types.Location(value: [40.7509, 73.9777])
        try realm.write { try realm.add(place) }
        XCTAssertEqual(place.point?.latitude, 40.75)
        XCTAssertEqual(place.location?.longitude, 73.9777)
    }

    /// The Realm-style contract block, verbatim: creating objects from values, upserts, deletes,
    /// `deleteAll()`, object identity and `AnyValue`'s typed accessors.
    func testIssueContractBlock() throws {
        let db = try openTourDatabase()
        let rex = Dog(value: ["name": "Rex", "age": 3])
        let other = Dog(value: ["name": "Other", "age": 5])
        let old = Dog(value: ["name": "Old", "age": 12])
        try db.write { try db.add([rex, other, old]) }
        try db.write {
            try db.add([Dog(), Dog()])
            try db.add([rex], update: .modified)
            let made: Dog = try db.create(Dog.self, value: ["name": "Made", "age": 4])
            _ = try db.create(Person.self, value: ["_id": ObjectId(), "name": "Bo", "dogs": [made], "address": ["city": "Nice"]], update: .modified)
            try db.delete(db.objects(Dog.self).where { $0.age > 10 })
            try db.delete([other])
        }
        XCTAssertEqual(db.objects(Person.self).first?.address?.city, "Nice")
        XCTAssertEqual(db.objects(Person.self).first?.dogs.first?.name, "Made")
        XCTAssertTrue(other.isInvalidated && old.isInvalidated)
        XCTAssertEqual(db.objects(Dog.self).count, 4, "Rex, two new dogs and Made, which Bo links to")
        try db.write { try db.deleteAll() }
        XCTAssertEqual(db.objects(Dog.self).count, 0)
        _ = Dog(value: ["name": "Rex", "age": 3])
        let address = Address(value: ["1 Main St", "Lyon"])            // array form, in property order
        XCTAssertEqual(address.city, "Lyon")
        XCTAssertFalse(rex.isSameObject(as: other))
        XCTAssertFalse(rex == other)
        XCTAssertEqual(Set([rex, other]).count, 2)
        XCTAssertEqual(Dog.className(), "Dog")
        _ = Address(value: ["1 Main St", "Lyon"])            // array form, in property order
        _ = rex.isSameObject(as: other)
        _ = rex == other                                     // Equatable by stored identity when managed
        _ = Set([rex, other]).count                          // Hashable
        _ = Dog.className()
        let v: AnyValue = .int(3)
        _ = (v.intValue, v.stringValue, v.boolValue, v.doubleValue, v.dateValue, v.objectValue(Dog.self))
        XCTAssertEqual(v.intValue, 3)
        XCTAssertNil(v.stringValue ?? v.boolValue.map { "\($0)" } ?? v.doubleValue.map { "\($0)" } ?? v.dateValue.map { "\($0)" })
        XCTAssertNil(v.objectValue(Dog.self))
    }
}
