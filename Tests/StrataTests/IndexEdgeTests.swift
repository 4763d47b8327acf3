import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

/// A class whose keys can be as long as keys may be, with an indexed Int.
final class LongKeyed: Object {
    @Persisted(primaryKey: true) var key: String
    @Persisted(indexed: true) var group: Int
}

/// Index entries at the edges: object keys too long for a whole entry key (shared entries that
/// list their objects), and damaged entries, which read as absent and are noted, never trap.
final class IndexEdgeTests: DatabaseTestCase {
    // MARK: Shared entries

    /// The longest object key an entry of an Int value holds whole: 65,535 − 8 − 9 bytes.
    private static let wholeKeyLength = ObjectFormat.maxStorageKeyLength - 17
    private static let stem = String(repeating: "k", count: wholeKeyLength)

    private func groupMembers(_ db: Database, _ group: Int) -> [String] {
        db.objects(LongKeyed.self).where { $0.group == group }.map(\.key)
    }

    private func indexValues(_ db: Database) throws -> [[UInt8]] {
        let snapshot = db.shared.store.snapshot()
        return try snapshot.keys(in: ObjectFormat.indexKeyspace).map { try XCTUnwrap(try snapshot.value(for: $0, in: ObjectFormat.indexKeyspace)) }
    }

    func testObjectsWhoseKeysAreCutShareOneEntryThatListsThem() throws {
        let db = try open([LongKeyed.self])
        let keys = [Self.stem, Self.stem + "b", Self.stem + "c", "short"]
        try db.write {
            for key in keys {
                let object = LongKeyed()
                object.key = key
                object.group = 1
                try db.add(object)
            }
            XCTAssertEqual(groupMembers(db, 1), keys.sorted(), "inside the write")
        }
        XCTAssertEqual(groupMembers(db, 1), keys.sorted())
        XCTAssertEqual(db.objects(LongKeyed.self).where { $0.group >= 0 && $0.group < 2 }.count, 4)
        XCTAssertEqual(db.shared.store.snapshot().count(in: ObjectFormat.indexKeyspace), 2, "one shared entry and the short key's")
        XCTAssertEqual(try indexValues(db).filter { !$0.isEmpty }.count, 1)
        XCTAssertEqual(db.checkIntegrity().problems, [])

        try db.write {
            try db.delete(db.object(ofType: LongKeyed.self, forPrimaryKey: Self.stem + "b")!)
            db.object(ofType: LongKeyed.self, forPrimaryKey: Self.stem + "c")!.group = 2
            XCTAssertEqual(groupMembers(db, 1), [Self.stem, "short"])
            XCTAssertEqual(groupMembers(db, 2), [Self.stem + "c"])
        }
        XCTAssertEqual(groupMembers(db, 1), [Self.stem, "short"])
        XCTAssertEqual(groupMembers(db, 2), [Self.stem + "c"])
        XCTAssertEqual(try indexValues(db).filter { !$0.isEmpty }.count, 1, "the key that is its entry's tail needs no list")
        XCTAssertEqual(db.checkIntegrity().problems, [])
        XCTAssertNil(db.readFailure)
    }

    func testAnObjectKeyOfTheLongestLengthIsIndexed() throws {
        let db = try open([LongKeyed.self])
        let longest = String(repeating: "z", count: ObjectFormat.maxObjectKeyLength)
        try db.write {
            let object = LongKeyed()
            object.key = longest
            object.group = 7
            try db.add(object)
        }
        XCTAssertEqual(groupMembers(db, 7), [longest])
        XCTAssertEqual(db.checkIntegrity().problems, [])
        try db.write { try db.delete(db.objects(LongKeyed.self)) }
        XCTAssertEqual(db.shared.store.snapshot().count(in: ObjectFormat.indexKeyspace), 0)
    }

    // MARK: Damage

    private func addPeople(_ db: Database, _ names: [String]) throws {
        try db.write {
            for name in names {
                let person = Person()
                person.name = name
                try db.add(person)
            }
        }
    }

    private func namePrefix(_ db: Database) -> [UInt8] {
        let schema = db.schemas.schema(for: Person.self)!
        return IndexKeyEncoding.propertyPrefix(classID: schema.classID, propertyID: schema["name"]!.propertyID)
    }

    private func commitRaw(_ db: Database, _ body: (inout WriteBatch) -> Void) throws {
        var batch = WriteBatch()
        body(&batch)
        try db.shared.store.commit(batch)
        db.refresh()
    }

    func testAnEntryKeyThatDoesNotParseReadsAsAbsentAndIsNoted() throws {
        let db = try open()
        // Many others, so that the range below is selective enough to read the index.
        try addPeople(db, ["ann", "bob", "cy"] + (0..<40).map { "p\($0)" })
        // A string with no terminator, between "ann" and "bob".
        try commitRaw(db) { $0.put([], forKey: StorageKey(namePrefix(db) + [0x06] + Array("b".utf8)), in: ObjectFormat.indexKeyspace) }
        XCTAssertEqual(Set(db.objects(Person.self).where { $0.name >= "a" && $0.name < "c" }.map(\.name)), ["ann", "bob"])
        XCTAssertEqual(db.readFailure?.code, .corruption)
        // A write that read it fails at commit.
        XCTAssertThrowsError(try db.write {
            _ = db.objects(Person.self).where { $0.name > "a" && $0.name < "c" }.count
            db.objects(Person.self).first!.name = "dee"
        }) { XCTAssertEqual(($0 as? StrataError)?.code, .corruption) }
    }

    func testASharedEntryWhoseListDoesNotDecodeReadsAsAbsentAndIsNoted() throws {
        let db = try open()
        try addPeople(db, ["ann", "bob"])
        let prefix = namePrefix(db) + [0x06] + Array("bob".utf8) + [0, 0]
        let key = StorageKey(prefix + [UInt8](repeating: 0x41, count: ObjectFormat.maxStorageKeyLength - prefix.count))
        try commitRaw(db) { $0.put([5, 1], forKey: key, in: ObjectFormat.indexKeyspace) }
        XCTAssertEqual(db.objects(Person.self).where { $0.name == "bob" }.map(\.name), ["bob"])
        XCTAssertEqual(db.readFailure?.code, .corruption)
    }

    /// Random bytes changed in the index entries' keys and values: reads never trap, and an
    /// indexed query finds only objects that match (a damaged entry may hide one).
    func testRandomlyDamagedEntriesNeverTrapAndNeverGiveANonMatch() throws {
        var random = SplitMix64(seed: 0x1DE5_2001)
        let db = try open()
        try addPeople(db, (0..<40).map { "n\($0 % 9)" + ($0 % 5 == 0 ? "\0x" : "") })
        let entries = db.shared.store.snapshot().keys(in: ObjectFormat.indexKeyspace)
        for round in 0..<60 {
            let victim = entries.randomElement(using: &random)!
            var bytes = victim.bytes
            for _ in 0..<Int.random(in: 1...3, using: &random) where bytes.count > 8 {
                let position = Int.random(in: 8..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[position] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.removeSubrange(position...)
                default: bytes.insert(UInt8.random(in: 0...2, using: &random), at: position)
                }
            }
            let value: [UInt8] = Bool.random(using: &random) ? [] : [UInt8.random(in: 0...255, using: &random)]
            try commitRaw(db) { batch in
                batch.delete(victim, in: ObjectFormat.indexKeyspace)
                if bytes.count >= 8 { batch.put(value, forKey: StorageKey(bytes), in: ObjectFormat.indexKeyspace) }
            }
            let low = "n\(Int.random(in: 0...8, using: &random))", high = "n\(Int.random(in: 0...9, using: &random))"
            let results = db.objects(Person.self).where { $0.name >= low && $0.name <= high }
            XCTAssertTrue(results.map(\.name).allSatisfy { $0 >= low && $0 <= high }, "round \(round)")
            // The index walk itself, however wide the range.
            if case .range(let range)? = IndexPlan.make(for: results.query.predicate!, schema: results.query.schema) {
                _ = db.indexedObjects(schema: results.query.schema, in: [range])
            }
            _ = db.objects(Person.self).where { $0.name == low }.count
            _ = db.checkIntegrity()
        }
    }
}
