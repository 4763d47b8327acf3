import Dispatch
import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

/// Random commits (adds, deletes, edits of observed and unobserved properties) against an
/// observed filtered and sorted `Results`. Each delivery records the results' primary keys and
/// every dog's stored values at the delivered version; the oracle then checks that applying the
/// deletions and insertions to the previous delivery gives the new one, that the new one is the
/// query's answer worked out by brute force, and that the modifications are exactly the kept
/// objects whose observed properties changed.
final class ResultsObserveRandomTests: DatabaseTestCase {
    struct Values: Equatable, Sendable { var name: String, age: Int, breed: String? }
    struct Delivery: Sendable {
        var ids: [ObjectId]
        var dogs: [ObjectId: Values]
        var deletions: [Int] = [], insertions: [Int] = [], modifications: [Int] = []
    }

    func testRandomCommitsWithEveryPropertyObserved() throws {
        try run(seed: 1, keyPaths: nil) { $0 }
    }

    func testRandomCommitsWithOnlyAgeObserved() throws {
        try run(seed: 2, keyPaths: ["age"]) { Values(name: "", age: $0.age, breed: nil) }
    }

    /// Unsorted results (key order), whose matches a delivery keeps without running the query
    /// again when no changed object entered or left them.
    func testRandomCommitsOnUnsortedResults() throws {
        try run(seed: 3, keyPaths: nil, sorted: false) { $0 }
    }

    private func run(seed: UInt64, keyPaths: [String]?, sorted: Bool = true, observed: @escaping (Values) -> Values) throws {
        let db = try open()
        let log = DeliveryLog<Delivery>()
        let filtered = db.objects(Dog.self).where { $0.age > 2 }
        let results = sorted ? filtered.sorted(by: \.name) : filtered
        let token = results.observe(keyPaths: keyPaths) { change in
            let dogs: Results<Dog>
            var delivery: Delivery
            switch change {
            case .initial(let initial):
                dogs = initial
                delivery = Delivery(ids: [], dogs: [:])
            case .update(let updated, let deletions, let insertions, let modifications):
                dogs = updated
                delivery = Delivery(ids: [], dogs: [:], deletions: deletions, insertions: insertions, modifications: modifications)
            case .error(let error):
                return XCTFail("\(error)")
            }
            delivery.ids = dogs.map(\._id)
            for dog in dogs.database.objects(Dog.self) {
                delivery.dogs[dog._id] = Values(name: dog.name, age: dog.age, breed: dog.breed)
            }
            log.append(delivery)
        }
        var random = SplitMix64(seed: seed)
        var serial = 0
        func freshName() -> String {
            serial += 1
            return "d\(Int.random(in: 100...999, using: &random))-\(serial)"
        }
        let marker = Dog()
        marker.name = "~marker"
        marker.age = 100
        try db.write { try db.add(marker) }
        for round in 1...60 {
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                try db.write {
                    for _ in 0..<Int.random(in: 1...3, using: &random) {
                        let dogs = Array(db.objects(Dog.self).where { $0.name != "~marker" })
                        let choice = dogs.isEmpty ? 0 : Int.random(in: 0..<5, using: &random)
                        switch choice {
                        case 0:
                            let dog = Dog()
                            dog.name = freshName()
                            dog.age = Int.random(in: 0...6, using: &random)
                            try db.add(dog)
                        case 1: try db.delete(dogs.randomElement(using: &random)!)
                        case 2: dogs.randomElement(using: &random)!.age = Int.random(in: 0...6, using: &random)
                        case 3: dogs.randomElement(using: &random)!.name = freshName()
                        default: dogs.randomElement(using: &random)!.breed = ["lab", "pug", nil].randomElement(using: &random)!
                        }
                    }
                }
            }
            // The marker's age changes in every round: a delivery that covers the round.
            try db.write { marker.age = 100 + round }
            log.wait { $0.last?.dogs[marker._id]?.age == 100 + round }
        }
        token.invalidate()
        check(log.all, marker: marker._id, sorted: sorted, observed: observed)
    }

    private func check(_ deliveries: [Delivery], marker: ObjectId, sorted: Bool, observed: (Values) -> Values) {
        XCTAssertGreaterThan(deliveries.count, 60)
        // The oracle is not vacuous: the commits moved, removed, added and modified objects.
        XCTAssertTrue(deliveries.contains { !$0.deletions.isEmpty })
        XCTAssertTrue(deliveries.contains { !$0.insertions.isEmpty })
        var previous: Delivery?
        var modifiedOthers = 0      // modifications of other dogs than the marker
        for delivery in deliveries {
            let matching = delivery.dogs.filter { $0.value.age > 2 }
            if sorted {
                let expected = matching.sorted { $0.value.name < $1.value.name }.map(\.key)
                XCTAssertEqual(delivery.ids, expected, "the delivered results are the query's answer")
            } else {
                XCTAssertEqual(Set(delivery.ids), Set(matching.keys), "the delivered results are the query's answer")
            }
            defer { previous = delivery }
            guard let previous else { continue }
            var applied = previous.ids
            for index in delivery.deletions.reversed() { applied.remove(at: index) }
            for index in delivery.insertions { applied.insert(delivery.ids[index], at: index) }
            XCTAssertEqual(applied, delivery.ids, "deletions and insertions turn the previous delivery into this one")
            let deleted = Set(delivery.deletions)
            let modified = previous.ids.indices.filter { index in
                let id = previous.ids[index]
                guard !deleted.contains(index), let old = previous.dogs[id], let new = delivery.dogs[id] else { return false }
                return observed(old) != observed(new)
            }
            XCTAssertEqual(delivery.modifications, modified, "modifications are the kept objects whose observed values changed")
            modifiedOthers += modified.filter { previous.ids[$0] != marker }.count
        }
        XCTAssertGreaterThan(modifiedOthers, 0)
    }
}
