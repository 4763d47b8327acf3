import Dispatch
import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

/// Random commits with link changes (people's dogs replaced and cleared, dogs' ages and names
/// changed, people added, renamed and deleted) against `people where dog.age > 2 sorted by name`
/// observed with `["dog.age"]`; the oracle is `ResultsObserveRandomTests`'s: the indexes turn
/// the previous delivery into this one, this one is the query's answer worked out by brute
/// force, and the modifications are the kept people whose dog or dog's age changed.
final class LinkObserveRandomTests: DatabaseTestCase {
    struct Owner: Equatable, Sendable { var name: String, dog: ObjectId? }
    struct Delivery: Sendable {
        var ids: [ObjectId] = []
        var people: [ObjectId: Owner] = [:]
        var ages: [ObjectId: Int] = [:]
        var deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = []
    }

    func testRandomCommitsThroughLinks() throws {
        let db = try open()
        let log = DeliveryLog<Delivery>()
        let token = db.objects(Person.self).where { $0.dog.age > 2 }.sorted(by: \.name).observe(keyPaths: ["dog.age"]) { change in
            var delivery = Delivery()
            let people: Results<Person>
            switch change {
            case .initial(let initial): people = initial
            case .update(let updated, let d, let i, let m):
                people = updated
                (delivery.deletions, delivery.insertions, delivery.modifications) = (d, i, m)
            case .error(let error): return XCTFail("\(error)")
            }
            delivery.ids = people.map(\._id)
            for person in people.database.objects(Person.self) { delivery.people[person._id] = Owner(name: person.name, dog: person.dog?._id) }
            for dog in people.database.objects(Dog.self) { delivery.ages[dog._id] = dog.age }
            log.append(delivery)
        }
        var random = SplitMix64(seed: 3)
        var serial = 0
        func freshName() -> String {
            serial += 1
            return "p\(Int.random(in: 100...999, using: &random))-\(serial)"
        }
        let (marker, markerDog) = (Person(), Dog())
        (marker.name, markerDog.age) = ("~marker", 100)
        marker.dog = markerDog
        try db.write { try db.add(marker) }
        for round in 1...50 {
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                try db.write {
                    let people = Array(db.objects(Person.self).where { $0.name != "~marker" })
                    let dogs = Array(db.objects(Dog.self).where { $0.age < 100 })
                    let choice = people.isEmpty || dogs.isEmpty ? 0 : Int.random(in: 0..<7, using: &random)
                    switch choice {
                    case 0:
                        let (person, dog) = (Person(), Dog())
                        person.name = freshName()
                        dog.age = Int.random(in: 0...6, using: &random)
                        person.dog = Bool.random(using: &random) ? dog : dogs.randomElement(using: &random)
                        try db.add(person)
                    case 1: try db.delete(people.randomElement(using: &random)!)
                    case 2: people.randomElement(using: &random)!.dog = dogs.randomElement(using: &random)
                    case 3: people.randomElement(using: &random)!.dog = nil
                    case 4: dogs.randomElement(using: &random)!.age = Int.random(in: 0...6, using: &random)
                    case 5: dogs.randomElement(using: &random)!.name = freshName()       // not observed
                    default: people.randomElement(using: &random)!.name = freshName()    // moves only
                    }
                }
            }
            try db.write { markerDog.age = 100 + round }
            log.wait { $0.last?.ages[markerDog._id] == 100 + round }
        }
        token.invalidate()
        check(log.all, marker: marker._id)
    }

    private func check(_ deliveries: [Delivery], marker: ObjectId) {
        XCTAssertGreaterThan(deliveries.count, 50)
        var previous: Delivery?
        var (modifiedOthers, deleted, inserted) = (0, 0, 0)
        for delivery in deliveries {
            let expected = delivery.people
                .filter { $0.value.dog.flatMap { delivery.ages[$0] }.map { $0 > 2 } ?? false }
                .sorted { $0.value.name < $1.value.name }.map(\.key)
            XCTAssertEqual(delivery.ids, expected, "the delivered results are the query's answer")
            defer { previous = delivery }
            guard let previous else { continue }
            var applied = previous.ids
            guard delivery.deletions.allSatisfy(applied.indices.contains) else { return XCTFail("deletion out of range") }
            for index in delivery.deletions.reversed() { applied.remove(at: index) }
            guard delivery.insertions.allSatisfy({ $0 <= delivery.ids.count }) else { return XCTFail("insertion out of range") }
            for index in delivery.insertions where index <= applied.count { applied.insert(delivery.ids[index], at: index) }
            XCTAssertEqual(applied, delivery.ids, "deletions and insertions turn the previous delivery into this one")
            let gone = Set(delivery.deletions)
            let modified = previous.ids.indices.filter { index in
                let id = previous.ids[index]
                guard !gone.contains(index), let old = previous.people[id], let new = delivery.people[id] else { return false }
                return old.dog != new.dog || old.dog.flatMap { previous.ages[$0] } != new.dog.flatMap { delivery.ages[$0] }
            }
            XCTAssertEqual(delivery.modifications, modified, "modifications are the kept people whose dog or its age changed")
            modifiedOthers += modified.filter { previous.ids[$0] != marker }.count
            (deleted, inserted) = (deleted + delivery.deletions.count, inserted + delivery.insertions.count)
        }
        XCTAssertGreaterThan(modifiedOthers, 0)
        XCTAssertGreaterThan(deleted, 0)
        XCTAssertGreaterThan(inserted, 0)
    }
}
