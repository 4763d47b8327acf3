import Dispatch
import Foundation
import StrataStorage
import XCTest

@testable import Strata

final class ChainTail: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var value: Int
}

final class ChainMiddle: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var tail: ChainTail?
    @Persisted var tails: List<ChainTail>
}

final class ChainHead: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var middle: ChainMiddle?
    @Persisted var middles: List<ChainMiddle>
}

/// Observed without key paths, a collection counts an object as modified when an object it
/// links to changed — after Realm's `LinkedObjectChangesetTests` (NotificationTests.m) and
/// realm-core's results.cpp "modifying related table … DOES send a notification".
final class LinkedChangeObserveTests: DatabaseTestCase {
    enum Event: Equatable, Sendable {
        case initial(Int)
        case update(deletions: [Int], insertions: [Int], modifications: [Int])
        case error
    }

    private func record<C: Collection & SendableMetatype>(_ log: DeliveryLog<Event>) -> @Sendable (CollectionChange<C>) -> Void {
        { change in
            switch change {
            case .initial(let collection): log.append(.initial(collection.count))
            case .update(_, let d, let i, let m): log.append(.update(deletions: d, insertions: i, modifications: m))
            case .error: log.append(.error)
            }
        }
    }

    /// Five people, each with a dog of their own (Realm's five `LinkStringObject`s).
    private func peopleWithDogs() throws -> (Database, [Dog]) {
        let db = try open()
        var dogs: [Dog] = []
        try db.write {
            for index in 0..<5 {
                let person = Person(), dog = Dog()
                person.name = "p\(index)"
                dog.name = "d\(index)"
                person.dog = dog
                try db.add(person)
                dogs.append(dog)
            }
        }
        return (db, dogs)
    }

    private func expect(_ log: DeliveryLog<Event>, after write: () throws -> Void, _ expected: Event?,
                        file: StaticString = #filePath, line: UInt = #line) rethrows {
        let before = log.all.count
        try write()
        ChangeObserver.defaultQueue.sync {}
        if let expected {
            log.wait(file: file, line: line) { $0.count > before }
            XCTAssertEqual(log.all.last, expected, file: file, line: line)
        } else {
            XCTAssertEqual(log.all.count, before, "no delivery expected", file: file, line: line)
        }
    }

    func testModifyingOrDeletingALinkedObjectModifiesTheLinkingOne() throws {
        let (db, dogs) = try peopleWithDogs()
        let log = DeliveryLog<Event>()
        let token = db.objects(Person.self).sorted(by: \.name).observe(record(log))
        log.wait { $0.count == 1 }
        try expect(log, after: { try db.write { dogs[3].age = 9 } }, .update(deletions: [], insertions: [], modifications: [3]))
        try expect(log, after: { try db.write { try db.delete(dogs[1]) } }, .update(deletions: [], insertions: [], modifications: [1]))
        try expect(log, after: {
            try db.write {
                let stray = Dog()
                stray.name = "stray"
                try db.add(stray)
            }
        }, nil)
        token.invalidate()
    }

    func testKeyPathsLimitWhatLinkedChangesCount() throws {
        let (db, dogs) = try peopleWithDogs()
        let log = DeliveryLog<Event>()
        let token = db.objects(Person.self).sorted(by: \.name).observe(keyPaths: ["name"], record(log))
        log.wait { $0.count == 1 }
        try expect(log, after: { try db.write { dogs[3].age = 9 } }, nil)
        token.invalidate()
    }

    func testAChangeFourLinksAwayCountsAndAListOfLinksIsFollowed() throws {
        let db = try open([ChainHead.self, ChainMiddle.self, ChainTail.self])
        let tail = ChainTail(), other = ChainTail()
        (tail.name, other.name) = ("t", "u")
        try db.write {
            let middle = ChainMiddle()
            middle.name = "m"
            middle.tail = tail
            middle.tails.append(other)
            let head = ChainHead()
            head.name = "h"
            head.middle = middle
            head.middles.append(middle)
            try db.add(head)
            let lone = ChainHead()
            lone.name = "lone"
            try db.add(lone)
        }
        let heads = DeliveryLog<Event>()
        let middles = DeliveryLog<Event>()
        let headToken = db.objects(ChainHead.self).sorted(by: \.name).observe(record(heads))
        let owner = try XCTUnwrap(db.objects(ChainHead.self).where { $0.name == "h" }.first)
        let listToken = db.objects(ChainMiddle.self).observe(record(middles))
        let held = DeliveryLog<Event>()
        let heldToken = owner.middles.observe(record(held))
        heads.wait { $0.count == 1 }
        middles.wait { $0.count == 1 }
        held.wait { $0.count == 1 }
        try expect(heads, after: { try db.write { tail.value = 1 } }, .update(deletions: [], insertions: [], modifications: [0]))
        try expect(heads, after: { try db.write { other.value = 1 } }, .update(deletions: [], insertions: [], modifications: [0]))
        middles.wait { $0.count == 3 }
        XCTAssertEqual(middles.all.last, .update(deletions: [], insertions: [], modifications: [0]))
        held.wait { $0.count == 3 }
        XCTAssertEqual(held.all.last, .update(deletions: [], insertions: [], modifications: [0]), "a list follows its objects' links too")
        headToken.invalidate()
        listToken.invalidate()
        heldToken.invalidate()
    }

    func testSectionedResultsSeeLinkedChangesToo() throws {
        let (db, dogs) = try peopleWithDogs()
        let log = DeliveryLog<[IndexPath]>()
        let token = db.objects(Person.self).sectioned(by: \.name, ascending: true).observe { change in
            switch change {
            case .initial: log.append([])
            case .update(_, _, _, let modifications, _, _): log.append(modifications)
            case .error: log.append([IndexPath(item: -1, section: -1)])
            }
        }
        log.wait { $0.count == 1 }
        try db.write { dogs[2].age = 4 }
        log.wait { $0.count == 2 }
        token.invalidate()
        XCTAssertEqual(log.all.last, [IndexPath(item: 0, section: 2)])
    }
}
