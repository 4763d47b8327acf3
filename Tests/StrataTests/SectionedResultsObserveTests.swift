import Dispatch
import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

/// `SectionedResults.observe` and `ResultsSection.observe`: Realm's expectations from its
/// SectionedResultsTests (`testObserveOnQueue`, `testObservationOnSection`), errors, and a random
/// test whose oracle replays each delivery's changes on the previous delivery.
final class SectionedResultsObserveTests: DatabaseTestCase {
    /// One delivery, summarized on the queue.
    struct Delivery: Sendable {
        struct Section: Equatable, Sendable {
            var key: String
            var ids: [ObjectId]
        }
        var initial: Bool
        var sections: [Section]
        var names: [[String]]
        var deletions: [IndexPath] = []
        var insertions: [IndexPath] = []
        var modifications: [IndexPath] = []
        var sectionsToInsert = IndexSet()
        var sectionsToDelete = IndexSet()
        /// Every dog's values at the delivered version, by id.
        var dogs: [ObjectId: Values] = [:]
    }

    struct Values: Equatable, Sendable { var name: String, age: Int, breed: String? }

    /// Summarizes a sectioned results or a section (`sectionsOf` gives the sections to record).
    private static func summary<C>(_ change: SectionedResultsChange<C>, sectionsOf: (C) -> [ResultsSection<String, Dog>]) -> Delivery? {
        func record(_ collection: C, initial: Bool) -> Delivery {
            let sections = sectionsOf(collection)
            var delivery = Delivery(
                initial: initial, sections: sections.map { Delivery.Section(key: $0.key, ids: $0.map(\._id)) },
                names: sections.map { $0.map(\.name) })
            if let database = sections.first?.index.results.database {
                for dog in database.objects(Dog.self) { delivery.dogs[dog._id] = Values(name: dog.name, age: dog.age, breed: dog.breed) }
            }
            return delivery
        }
        switch change {
        case .initial(let collection):
            return record(collection, initial: true)
        case .update(let collection, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
            var delivery = record(collection, initial: false)
            delivery.deletions = deletions
            delivery.insertions = insertions
            delivery.modifications = modifications
            delivery.sectionsToInsert = sectionsToInsert
            delivery.sectionsToDelete = sectionsToDelete
            return delivery
        case .error(let error):
            XCTFail("unexpected error \(error)")
            return nil
        }
    }

    private func observe(_ sections: SectionedResults<String, Dog>, keyPaths: [String]? = nil,
                         into log: DeliveryLog<Delivery>) -> NotificationToken {
        sections.observe(keyPaths: keyPaths) { change in
            if let delivery = Self.summary(change, sectionsOf: { Array($0) }) { log.append(delivery) }
        }
    }

    private func observe(_ section: ResultsSection<String, Dog>, keyPaths: [String]? = nil,
                         into log: DeliveryLog<Delivery>) -> NotificationToken {
        section.observe(keyPaths: keyPaths) { change in
            if let delivery = Self.summary(change, sectionsOf: { [$0] }) { log.append(delivery) }
        }
    }

    /// Realm's fixture: banana, box, apple, chalk.
    private func openWithFruit() throws -> Database {
        let db = try open()
        try db.write {
            for name in ["banana", "box", "apple", "chalk"] {
                let dog = Dog()
                dog.name = name
                try db.add(dog)
            }
        }
        return db
    }

    private func dog(_ name: String, in db: Database) -> Dog { db.objects(Dog.self).where { $0.name == name }.first! }

    private func add(_ name: String, to db: Database) throws {
        let dog = Dog()
        dog.name = name
        try db.add(dog)
    }

    private func path(_ section: Int, _ item: Int) -> IndexPath { IndexPath(item: item, section: section) }

    /// Realm's `testObserveOnQueue`: a section removed, one added, an object renamed within its
    /// section (moved: a deletion and an insertion), then a rename in place (a modification) and
    /// an unobserved change (nothing).
    func testRealmsObserveExpectations() throws {
        let db = try openWithFruit()
        let log = DeliveryLog<Delivery>()
        let token = observe(db.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true), keyPaths: ["name"], into: log)
        log.wait { $0.count == 1 }
        XCTAssertEqual(log.all[0].names, [["apple"], ["banana", "box"], ["chalk"]])
        try db.write {
            try db.delete(dog("banana", in: db))
            try db.delete(dog("apple", in: db))
            dog("box", in: db).name = "bog"
            try add("zebra", to: db)
        }
        log.wait { $0.count == 2 }
        let update = log.all[1]
        XCTAssertEqual(update.names, [["bog"], ["chalk"], ["zebra"]])
        XCTAssertEqual(update.sectionsToDelete, [0])
        XCTAssertEqual(update.sectionsToInsert, [2])
        XCTAssertEqual(update.deletions, [path(1, 0), path(1, 1)])
        XCTAssertEqual(update.insertions, [path(0, 0), path(2, 0)])
        XCTAssertEqual(update.modifications, [])
        try db.write {
            dog("bog", in: db).name = "bogg"
            dog("chalk", in: db).age = 1   // not observed
        }
        log.wait { $0.count == 3 }
        XCTAssertEqual(log.all[2].modifications, [path(0, 0)])
        XCTAssertEqual(log.all[2].deletions + log.all[2].insertions, [])
        XCTAssertEqual(log.all[2].sectionsToInsert.count + log.all[2].sectionsToDelete.count, 0)
        try db.write { dog("chalk", in: db).age = 2 }
        ChangeObserver.defaultQueue.sync {}
        XCTAssertEqual(log.all.count, 3, "a change of no observed property and no section delivers nothing")
        token.invalidate()
    }

    /// Realm's `testObservationOnSection`: an observer of one section gets its key's changes
    /// only, with the sectioned results' indexes.
    func testASectionObserverGetsOnlyItsKeysChanges() throws {
        let db = try openWithFruit()
        let sections = db.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
        let (aLog, bLog) = (DeliveryLog<Delivery>(), DeliveryLog<Delivery>())
        let aToken = observe(sections[0], keyPaths: ["name"], into: aLog)
        let bToken = observe(sections[1], keyPaths: ["name"], into: bLog)
        aLog.wait { $0.count == 1 }
        bLog.wait { $0.count == 1 }
        XCTAssertEqual(aLog.all[0].names, [["apple"]])
        XCTAssertEqual(bLog.all[0].names, [["banana", "box"]])
        try db.write {
            try db.delete(dog("banana", in: db))
            try db.delete(dog("apple", in: db))
        }
        aLog.wait { $0.count == 2 }
        bLog.wait { $0.count == 2 }
        XCTAssertEqual(aLog.all[1].sectionsToDelete, [0])
        XCTAssertEqual(aLog.all[1].deletions + aLog.all[1].insertions + aLog.all[1].modifications, [])
        XCTAssertEqual(aLog.all[1].names, [[]], "the section of a key no object has is empty")
        XCTAssertEqual(bLog.all[1].deletions, [path(1, 0)])
        XCTAssertEqual(bLog.all[1].sectionsToDelete.count + bLog.all[1].sectionsToInsert.count, 0)
        XCTAssertEqual(bLog.all[1].names, [["box"]])
        try db.write {
            dog("box", in: db).name = "bog"
            try add("bag", to: db)
        }
        bLog.wait { $0.count == 3 }
        XCTAssertEqual(bLog.all[2].deletions, [path(0, 0)])
        XCTAssertEqual(bLog.all[2].insertions, [path(0, 0), path(0, 1)])
        XCTAssertEqual(bLog.all[2].modifications, [])
        try db.write { try add("app", to: db) }
        aLog.wait { $0.count == 3 }
        XCTAssertEqual(aLog.all[2].insertions, [path(0, 0)])
        XCTAssertEqual(aLog.all[2].sectionsToInsert, [0])
        XCTAssertEqual(aLog.all[2].names, [["app"]])
        ChangeObserver.defaultQueue.sync {}
        XCTAssertEqual(bLog.all.count, 3, "a commit that changes only another section delivers nothing")
        XCTAssertEqual(aLog.all.count, 3)
        aToken.invalidate()
        bToken.invalidate()
    }

    func testAnObjectThatChangesSectionThroughAnUnobservedPropertyIsMoved() throws {
        let db = try openWithFruit()
        let log = DeliveryLog<Delivery>()
        let token = observe(db.objects(Dog.self).sectioned(by: \.firstLetter), keyPaths: ["age"], into: log)
        log.wait { $0.count == 1 }
        try db.write { dog("chalk", in: db).name = "bzz" }
        log.wait { $0.count == 2 }
        XCTAssertEqual(log.all[1].names, [["apple"], ["banana", "box", "bzz"]])
        XCTAssertEqual(log.all[1].sectionsToDelete, [2])
        XCTAssertEqual(log.all[1].insertions, [path(1, 2)])
        XCTAssertEqual(log.all[1].deletions, [], "the deleted section's item is not listed (Realm)")
        token.invalidate()
    }

    func testFrozenSectionedResultsOrAnUnknownKeyPathDeliverAnError() throws {
        let db = try openWithFruit()
        let errors = DeliveryLog<String>()
        let sections = db.objects(Dog.self).sectioned(by: \.firstLetter)
        let frozen = sections.freeze().observe { change in
            if case .error(let error) = change { errors.append("frozen: \(error)") }
        }
        let frozenSection = sections[0].freeze().observe { change in
            if case .error(let error) = change { errors.append("frozen section: \(error)") }
        }
        let unknown = sections.observe(keyPaths: ["weight"]) { change in
            if case .error(let error) = change { errors.append("unknown: \(error)") }
        }
        errors.wait { $0.count == 3 }
        XCTAssertTrue(errors.all.contains { $0.hasPrefix("unknown") && $0.contains("weight") })
        XCTAssertEqual(errors.all.filter { $0.hasPrefix("frozen") }.count, 2)
        _ = (frozen, frozenSection, unknown)
    }

    func testInvalidatingTheTokenStopsDeliveries() throws {
        let db = try openWithFruit()
        let log = DeliveryLog<Delivery>()
        let token = observe(db.objects(Dog.self).sectioned(by: \.firstLetter), into: log)
        log.wait { $0.count == 1 }
        token.invalidate()
        try db.write { try add("dart", to: db) }
        ChangeObserver.defaultQueue.sync {}
        XCTAssertEqual(log.all.count, 1)
        XCTAssertEqual(db.shared.notifier.count, 0)
    }

    func testABurstOfCommitsIsOneDeliveryOnTheGivenQueue() throws {
        let db = try openWithFruit()
        let queue = DispatchQueue(label: "sections-burst")
        let log = DeliveryLog<Delivery>()
        let token = db.objects(Dog.self).sectioned(by: \.firstLetter).observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            if let delivery = Self.summary(change, sectionsOf: { Array($0) }) { log.append(delivery) }
        }
        log.wait { $0.count == 1 }
        queue.sync {}  // the initial delivery's run has ended: a commit now queues a new run behind `held`
        let held = DispatchSemaphore(value: 0)
        queue.async { held.wait() }
        for name in ["egg", "dart", "ant", "bee"] { try db.write { try add(name, to: db) } }
        held.signal()
        queue.sync {}
        XCTAssertEqual(log.all.count, 2)
        XCTAssertEqual(log.all[1].names, [["ant", "apple"], ["banana", "bee", "box"], ["chalk"], ["dart"], ["egg"]])
        XCTAssertEqual(log.all[1].sectionsToInsert, [3, 4])
        XCTAssertEqual(log.all[1].insertions, [path(0, 0), path(1, 1), path(3, 0), path(4, 0)])
        token.invalidate()
    }

    // MARK: Random commits

    func testRandomCommitsWithEveryPropertyObserved() throws {
        try runRandom(seed: 11, keyPaths: nil) { $0 }
    }

    func testRandomCommitsWithOnlyAgeObserved() throws {
        try runRandom(seed: 12, keyPaths: ["age"]) { Values(name: "", age: $0.age, breed: nil) }
    }

    /// Sections in the order of a sort by age: they change places as ages change, and a section
    /// that moves is deleted and inserted.
    func testRandomCommitsWithSectionsInTheOrderOfTheSort() throws {
        try runRandom(seed: 13, keyPaths: nil, bySort: true) { $0 }
    }

    /// Random commits (adds, deletes, renames that move dogs between sections, age and breed
    /// edits) against `where age > 2`, sectioned by first letter. The oracle: each delivery is
    /// the sections worked out by brute force; replaying its changes on the previous delivery
    /// gives it; and its modifications are kept objects whose observed values changed, every
    /// such object being modified or moved.
    private func runRandom(seed: UInt64, keyPaths: [String]?, bySort: Bool = false, observed: @escaping (Values) -> Values) throws {
        let db = try open()
        let log = DeliveryLog<Delivery>()
        let matches = db.objects(Dog.self).where { $0.age > 2 }
        let sections = bySort
            ? matches.sectioned(by: \.firstLetter, sortDescriptors: ["age", "name"]) : matches.sectioned(by: \.firstLetter)
        let token = observe(sections, keyPaths: keyPaths, into: log)
        var random = SplitMix64(seed: seed)
        var serial = 0
        func freshName() -> String {
            serial += 1
            return "\(["a", "b", "c", "d"].randomElement(using: &random)!)\(Int.random(in: 10...99, using: &random))-\(serial)"
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
                        switch dogs.isEmpty ? 0 : Int.random(in: 0..<5, using: &random) {
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
            try db.write { marker.age = 100 + round }
            log.wait { $0.last?.dogs[marker._id]?.age == 100 + round }
        }
        token.invalidate()
        checkRandom(log.all, marker: marker._id, bySort: bySort, observed: observed)
    }

    private func checkRandom(_ deliveries: [Delivery], marker: ObjectId, bySort: Bool, observed: (Values) -> Values) {
        XCTAssertGreaterThan(deliveries.count, 60)
        var previous: Delivery?
        var (movedSections, modifiedOthers, itemDeletions, reordered) = (0, 0, 0, 0)
        for delivery in deliveries {
            XCTAssertEqual(delivery.sections, Self.bruteForce(delivery.dogs, bySort: bySort), "the delivered sections are the query's answer")
            defer { previous = delivery }
            guard let previous else { continue }
            XCTAssertEqual(Self.replay(delivery, on: previous.sections), delivery.sections,
                           "the changes turn the previous delivery into this one")
            // Modifications: kept items (not deleted, section not deleted) whose observed values
            // changed; each such item is modified, or deleted and inserted (moved).
            let deleted = Set(delivery.deletions)
            var changed: [IndexPath] = []
            for (s, section) in previous.sections.enumerated() where !delivery.sectionsToDelete.contains(s) {
                for (i, id) in section.ids.enumerated() where !deleted.contains(IndexPath(item: i, section: s)) {
                    if let old = previous.dogs[id], let new = delivery.dogs[id], observed(old) != observed(new) {
                        changed.append(IndexPath(item: i, section: s))
                    }
                }
            }
            XCTAssertEqual(delivery.modifications, changed, "modifications are the kept objects whose observed values changed")
            modifiedOthers += changed.filter { previous.sections[$0.section].ids[$0.item] != marker }.count
            movedSections += delivery.sectionsToInsert.count + delivery.sectionsToDelete.count
            let keptKeys = Set(previous.sections.map(\.key)).intersection(delivery.sections.map(\.key))
            if previous.sections.map(\.key).filter(keptKeys.contains) != delivery.sections.map(\.key).filter(keptKeys.contains) {
                reordered += 1
            }
            itemDeletions += delivery.deletions.count
        }
        // The oracle is not vacuous.
        XCTAssertGreaterThan(movedSections, 0)
        XCTAssertGreaterThan(modifiedOthers, 0)
        XCTAssertGreaterThan(itemDeletions, 0)
        if bySort { XCTAssertGreaterThan(reordered, 0, "sections changed places") }
    }

    /// The sections of `where age > 2` by first letter: sorted by name, sections by key; or
    /// (`bySort`) sorted by age then name, sections in the order they first come.
    private static func bruteForce(_ dogs: [ObjectId: Values], bySort: Bool) -> [Delivery.Section] {
        let matches = dogs.filter { $0.value.age > 2 }.sorted { lhs, rhs in
            if bySort, lhs.value.age != rhs.value.age { return lhs.value.age < rhs.value.age }
            return lhs.value.name.utf8.lexicographicallyPrecedes(rhs.value.name.utf8)
        }
        var sections: [Delivery.Section] = []
        for (id, values) in matches {
            let key = String(values.name.prefix(1))
            if let index = sections.firstIndex(where: { $0.key == key }) {
                sections[index].ids.append(id)
            } else {
                sections.append(Delivery.Section(key: key, ids: [id]))
            }
        }
        return bySort ? sections : sections.sorted { $0.key < $1.key }
    }

    /// A table view's batch update: item deletions, section deletions, section insertions
    /// (empty, with the new key), item insertions; nil when an index is out of range.
    static func replay(_ delivery: Delivery, on old: [Delivery.Section]) -> [Delivery.Section]? {
        var sections = old
        for deletion in delivery.deletions.reversed() {
            guard sections.indices.contains(deletion.section), sections[deletion.section].ids.indices.contains(deletion.item) else { return nil }
            sections[deletion.section].ids.remove(at: deletion.item)
        }
        for section in delivery.sectionsToDelete.reversed() {
            guard sections.indices.contains(section) else { return nil }
            sections.remove(at: section)
        }
        for section in delivery.sectionsToInsert {
            guard delivery.sections.indices.contains(section), section <= sections.count else { return nil }
            sections.insert(Delivery.Section(key: delivery.sections[section].key, ids: []), at: section)
        }
        for insertion in delivery.insertions {
            guard sections.indices.contains(insertion.section), delivery.sections.indices.contains(insertion.section),
                  delivery.sections[insertion.section].ids.indices.contains(insertion.item),
                  insertion.item <= sections[insertion.section].ids.count else { return nil }
            sections[insertion.section].ids.insert(delivery.sections[insertion.section].ids[insertion.item], at: insertion.item)
        }
        return sections
    }
}
