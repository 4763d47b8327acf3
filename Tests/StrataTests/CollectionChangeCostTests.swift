import Foundation
import XCTest

@testable import Strata

// The cost of one change of a collection, counted as the elements the write visits for it
// (`WriteTransaction.visitedElements`: links walked, map keys compared, set members hashed),
// and the backlinks, key order and embedded objects such changes keep right.

final class CostTarget: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(originProperty: "links") var listOwners: LinkingObjects<CostOwner>
}

final class CostPlace: EmbeddedObject {
    @Persisted var name: String
    @Persisted var target: CostTarget?
}

final class CostOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var links: List<CostTarget>
    @Persisted var scores: Map<String, Int>
    @Persisted var tagged: Map<String, CostTarget?>
    @Persisted var numbers: MutableSet<Int>
    @Persisted var places: List<CostPlace>
}

final class CollectionChangeCostTests: DatabaseTestCase {
    private func openCostDatabase() throws -> Database {
        try open([CostTarget.self, CostPlace.self, CostOwner.self])
    }

    /// A database with owner 0 and targets 0..<targets.
    private func makeOwner(targets: Int) throws -> (Database, CostOwner, [CostTarget]) {
        let db = try openCostDatabase()
        try db.write {
            _ = try db.create(CostOwner.self, value: ["id": 0])
            for id in 0..<targets { _ = try db.create(CostTarget.self, value: ["id": id]) }
        }
        let owner = db.object(ofType: CostOwner.self, forPrimaryKey: 0)!
        let all = (0..<targets).map { db.object(ofType: CostTarget.self, forPrimaryKey: $0)! }
        return (db, owner, all)
    }

    /// The links into `target` through `CostOwner.property` (a map, or a list of embedded
    /// objects, which `LinkingObjects` cannot name), as `db` sees them.
    private func links(into target: CostTarget, through property: String, in db: Database) -> Int {
        let owner = db.schemas.schema(for: CostOwner.self)!.properties.first { $0.name == property }!
        return db.backlinks(of: target._strataState!.key).filter { $0.propertyID == owner.propertyID }.count
    }

    /// The elements the open write of `db` visits while `body` runs.
    private func visited(in db: Database, _ body: () throws -> Void) rethrows -> Int {
        let before = db.transaction!.visitedElements
        try body()
        return db.transaction!.visitedElements - before
    }

    // MARK: Cost

    func testListAppendVisitsOnlyTheAppendedLink() throws {
        let (db, owner, targets) = try makeOwner(targets: 100)
        try db.write {
            for index in 0..<2_000 { owner.links.append(targets[index % 100]) }
            let last = visited(in: db) {
                for index in 0..<100 { owner.links.append(targets[index]) }
            }
            XCTAssertLessThanOrEqual(last, 100, "100 appends to a list of 2,000 links")
        }
        XCTAssertEqual(owner.links.count, 2_100)
    }

    func testListRemovalsCountTheLinksOncePerWrite() throws {
        let (db, owner, targets) = try makeOwner(targets: 10)
        try db.write { for index in 0..<2_000 { owner.links.append(targets[index % 10]) } }
        try db.write {
            let removals = visited(in: db) { for _ in 0..<1_000 { owner.links.removeLast() } }
            // The list's 2,000 links counted once, then one link per removal.
            XCTAssertLessThanOrEqual(removals, 2_000 + 1_000)
        }
        XCTAssertEqual(owner.links.count, 1_000)
        XCTAssertEqual(targets[3].listOwners.count, 1)
    }

    func testManagedMapSetComparesLogarithmicallyManyKeys() throws {
        let (db, owner, _) = try makeOwner(targets: 0)
        let keys = (0..<4_096).map { "key-\($0 * 7_919 % 4_096)" }
        try db.write {
            for (value, key) in keys.dropLast(100).enumerated() { owner.scores[key] = value }
            let sets = visited(in: db) { for key in keys.suffix(100) { owner.scores[key] = 1 } }
            // log2(4,096) = 12 comparisons, and one for the key found.
            XCTAssertLessThanOrEqual(sets, 100 * 14)
            let gets = visited(in: db) { for key in keys.prefix(100) { _ = owner.scores[key] } }
            XCTAssertLessThanOrEqual(gets, 100 * 14)
        }
        XCTAssertEqual(owner.scores.count, 4_096)
    }

    func testManagedSetInsertHashesTheSetOncePerWrite() throws {
        let (db, owner, _) = try makeOwner(targets: 0)
        try db.write { for number in 0..<1_000 { owner.numbers.insert(number) } }
        try db.write {
            let inserts = visited(in: db) {
                for number in 500..<1_500 { owner.numbers.insert(number) }
            }
            // The set's 1,000 elements hashed once, then one lookup per insert.
            XCTAssertLessThanOrEqual(inserts, 1_000 + 1_000)
        }
        XCTAssertEqual(owner.numbers.count, 1_500)
    }

    /// The address of the elements (or entries) of `owner`'s field `name` as the open write
    /// holds them, and whether they have room for one more.
    private func storage(of owner: CostOwner, _ name: String) -> (address: UInt, hasRoom: Bool) {
        let state = owner._strataState!
        let index = state.schema.properties.first { $0.name == name }!.index
        switch state.field(index)! {
        case .list(let elements), .set(let elements):
            return (elements.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }, elements.capacity > elements.count)
        case .map(let entries):
            return (entries.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }, entries.capacity > entries.count)
        default:
            return (0, false)
        }
    }

    /// Runs `change` once the field has room for one more element, and checks that it left the
    /// field's elements where they were (not copied).
    private func checkInPlace(_ owner: CostOwner, _ name: String, grow: () -> Void, change: () -> Void) {
        while !storage(of: owner, name).hasRoom { grow() }
        let before = storage(of: owner, name).address
        change()
        XCTAssertEqual(storage(of: owner, name).address, before, "\(name): the change copied the field")
    }

    func testChangesOfManagedCollectionsDoNotCopyTheirElements() throws {
        let (db, owner, targets) = try makeOwner(targets: 2)
        try db.write {
            for index in 0..<100 { owner.links.append(targets[index % 2]) }
            checkInPlace(owner, "links", grow: { owner.links.append(targets[0]) }) { owner.links.append(targets[1]) }
            checkInPlace(owner, "links", grow: {}) { owner.links.removeLast() }
            var next = 0
            let setNext = { owner.scores["k\(next)"] = next; next += 1 }
            for _ in 0..<100 { setNext() }
            checkInPlace(owner, "scores", grow: setNext, change: setNext)
            checkInPlace(owner, "numbers", grow: { owner.numbers.insert(next); next += 1 }) { owner.numbers.insert(-1) }
        }
    }

    func testUnmanagedMapSetChangesItsStorageInPlace() {
        let map = Map<String, Int>()
        map["a"] = 1
        let storage = map.unmanagedStorageAddress
        map["a"] = 2
        XCTAssertEqual(map.unmanagedStorageAddress, storage, "a set copied the dictionary")
        XCTAssertEqual(map["a"], 2)
    }

    // MARK: What the changes keep

    func testBacklinksFollowInPlaceChangesOfAListWithDuplicates() throws {
        let (db, owner, targets) = try makeOwner(targets: 2)
        try db.write {
            owner.links.append(targets[0])
            owner.links.append(targets[0])
            owner.links.append(targets[1])
        }
        XCTAssertEqual(Array(targets[0].listOwners).map(\.id), [0])
        try db.write {
            owner.links.remove(at: 0)  // one link to target 0 is left
            XCTAssertEqual(targets[0].listOwners.count, 1)
            owner.links[1] = targets[0]  // target 1's only link replaced
            XCTAssertEqual(targets[1].listOwners.count, 0)
        }
        XCTAssertEqual(targets[0].listOwners.count, 1)
        XCTAssertEqual(targets[1].listOwners.count, 0)
        try db.write {
            owner.links.removeFirst()
            XCTAssertEqual(targets[0].listOwners.count, 1, "the element at 1 still links to target 0")
            owner.links.removeAll()
        }
        XCTAssertEqual(targets[0].listOwners.count, 0)
        XCTAssertTrue(db.checkIntegrity().isClean, db.checkIntegrity().description)
    }

    func testBacklinksFollowAListChangedInPlaceAfterAWholeAssignment() throws {
        let (db, owner, targets) = try makeOwner(targets: 2)
        try db.write {
            owner.links.append(targets[0])
            owner.links.removeLast()  // counts the links of the field
            owner.links = List([targets[1], targets[1]])  // the general path: the count goes
            owner.links.removeLast()
            XCTAssertEqual(targets[1].listOwners.count, 1)
            owner.links.removeLast()
        }
        XCTAssertEqual(targets[0].listOwners.count, 0)
        XCTAssertEqual(targets[1].listOwners.count, 0)
        XCTAssertTrue(db.checkIntegrity().isClean, db.checkIntegrity().description)
    }

    func testBacklinksFollowMapValues() throws {
        let (db, owner, targets) = try makeOwner(targets: 2)
        try db.write {
            owner.tagged["a"] = targets[0]
            owner.tagged["b"] = targets[0]
            owner.tagged["a"] = targets[1]
        }
        XCTAssertEqual(links(into: targets[0], through: "tagged", in: db), 1)
        XCTAssertEqual(links(into: targets[1], through: "tagged", in: db), 1)
        try db.write {
            owner.tagged["b"] = nil
            XCTAssertEqual(links(into: targets[0], through: "tagged", in: db), 0)
            owner.tagged.removeAll()
        }
        XCTAssertEqual(links(into: targets[0], through: "tagged", in: db), 0)
        XCTAssertEqual(links(into: targets[1], through: "tagged", in: db), 0)
        XCTAssertTrue(db.checkIntegrity().isClean, db.checkIntegrity().description)
    }

    func testManagedMapKeysStayInUTF8OrderWhateverTheOrderOfSets() throws {
        let (db, owner, _) = try makeOwner(targets: 0)
        let keys = ["z", "\u{E9}", "e\u{301}", "a", "Z", "ab", "", "e", "\u{1F600}"]
        try db.write {
            for (value, key) in keys.enumerated() { owner.scores[key] = value }
            owner.scores["a"] = 100
            owner.scores["ab"] = nil
        }
        let expected = keys.filter { $0 != "ab" }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        XCTAssertEqual(owner.scores.keys, expected)
        XCTAssertEqual(owner.scores["a"], 100)
        XCTAssertEqual(owner.scores["\u{E9}"], 1)
        XCTAssertEqual(owner.scores["e\u{301}"], 2)
        XCTAssertNil(owner.scores["ab"])
    }

    func testEmbeddedObjectsAppendedInPlaceAreAdoptedAndLinked() throws {
        let (db, owner, targets) = try makeOwner(targets: 1)
        let place = CostPlace()
        place.name = "second"
        try db.write {
            owner.places.append(CostPlace(value: ["name": "first"]))
            owner.places.append(place)
            place.target = targets[0]
        }
        XCTAssertTrue(place.isManaged)
        XCTAssertEqual(owner.places.map(\.name), ["first", "second"])
        XCTAssertEqual(links(into: targets[0], through: "places", in: db), 1)
        try db.write { owner.places.remove(at: 1) }
        XCTAssertTrue(place.isInvalidated)
        XCTAssertEqual(links(into: targets[0], through: "places", in: db), 0)
        XCTAssertTrue(db.checkIntegrity().isClean, db.checkIntegrity().description)
    }

    func testAConversionErrorChangesNothingAndFailsTheWrite() throws {
        let (db, owner, _) = try makeOwner(targets: 0)
        try db.write { owner.scores["kept"] = 1 }
        XCTAssertThrowsError(try db.write { owner.scores["bad.key"] = 2 })
        XCTAssertEqual(owner.scores.keys, ["kept"])
    }
}
