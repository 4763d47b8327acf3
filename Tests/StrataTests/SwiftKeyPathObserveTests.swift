import Dispatch
import Foundation
import StrataStorage
import XCTest

@testable import Strata

/// `observe(keyPaths: [PartialKeyPath])` — after Realm's RealmCollectionTypeTests
/// `testObservePartialKeyPath*`: Swift key paths name the same properties as their strings,
/// through links too (`\.dog?.age` is `"dog.age"`).
final class SwiftKeyPathObserveTests: DatabaseTestCase {
    enum Event: Equatable, Sendable {
        case initial(Int)
        case update(deletions: [Int], insertions: [Int], modifications: [Int])
        case error
    }

    private func record(_ log: DeliveryLog<Event>) -> @Sendable (CollectionChange<Results<Person>>) -> Void {
        { change in
            switch change {
            case .initial(let people): log.append(.initial(people.count))
            case .update(_, let d, let i, let m): log.append(.update(deletions: d, insertions: i, modifications: m))
            case .error: log.append(.error)
            }
        }
    }

    private func twoPeopleWithOneDog() throws -> (Database, Dog) {
        let db = try open()
        let dog = Dog()
        dog.name = "Rex"
        try db.write {
            for name in ["Ann", "Bob"] {
                let person = Person()
                person.name = name
                person.dog = dog
                try db.add(person)
            }
        }
        return (db, dog)
    }

    func testAKeyPathThroughALinkNotifiesForTheLinkedProperty() throws {
        let (db, dog) = try twoPeopleWithOneDog()
        let log = DeliveryLog<Event>()
        let token = db.objects(Person.self).sorted(by: \.name).observe(keyPaths: [\Person.dog?.age], record(log))
        log.wait { $0.count == 1 }
        try db.write { dog.name = "Max" }           // not observed
        try db.write { dog.age = 2 }                // observed, through both people's link
        log.wait { $0.count == 2 }
        token.invalidate()
        XCTAssertEqual(log.all, [.initial(2), .update(deletions: [], insertions: [], modifications: [0, 1])])
    }

    func testAKeyPathOnTheObjectIgnoresItsLinkedObjects() throws {
        let (db, dog) = try twoPeopleWithOneDog()
        let log = DeliveryLog<Event>()
        let token = db.objects(Person.self).sorted(by: \.name).observe(keyPaths: [\Person.height], record(log))
        log.wait { $0.count == 1 }
        try db.write { dog.age = 2 }
        try db.write { db.objects(Person.self).where { $0.name == "Bob" }.first!.height = 1.8 }
        log.wait { $0.count == 2 }
        token.invalidate()
        XCTAssertEqual(log.all, [.initial(2), .update(deletions: [], insertions: [], modifications: [1])])
    }

    func testAnObjectsSwiftKeyPaths() throws {
        let (db, dog) = try twoPeopleWithOneDog()
        let log = DeliveryLog<[String]>()
        let token = dog.observe(keyPaths: [\Dog.age]) { change in
            if case .change(_, let properties) = change { log.append(properties.map(\.name)) }
        }
        try db.write { dog.name = "Max" }
        try db.write { dog.age = 4 }
        log.wait { $0.count == 1 }
        token.invalidate()
        XCTAssertEqual(log.all, [["age"]])
    }

    func testAKeyPathToNoPersistedPropertyIsAnError() throws {
        let (db, _) = try twoPeopleWithOneDog()
        let log = DeliveryLog<Event>()
        let token = db.objects(Person.self).observe(keyPaths: [\Person.isInvalidated], record(log))
        log.wait { $0.count == 1 }
        token.invalidate()
        XCTAssertEqual(log.all, [.error])
    }
}
