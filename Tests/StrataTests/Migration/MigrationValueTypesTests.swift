import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Testing) @testable import Strata

/// Every stored type through a migration, as Realm's testBasicTypesInEnumerate and
/// testMigrationObject: the block reads each as Realm hands it out (`Int` for every integer
/// width, a `MigrationObject` for a link, arrays and dictionaries for collections), and a
/// migration that changes nothing else leaves every value as it was, to the stored byte.
final class MigrationValueTypesTests: MigrationTestCase {
    enum Types {
        final class Everything: Object {
            @Persisted(primaryKey: true) var _id: Int
            @Persisted var flag: Bool
            @Persisted var small: Int8
            @Persisted var medium: Int16?
            @Persisted var large: Int32
            @Persisted var huge: Int64
            @Persisted var ratio: Float
            @Persisted var height: Double
            @Persisted var name: String
            @Persisted var photo: Data?
            @Persisted var born: Date
            @Persisted var balance: Decimal128
            @Persisted var oid: ObjectId
            @Persisted var ref: UUID
            @Persisted var extra: AnyValue
            @Persisted var next: Everything?
            @Persisted var tags: List<String>
            @Persisted var codes: MutableSet<Int>
            @Persisted var scores: Map<String, Double?>
        }
    }

    func testEveryTypeReadsAsRealmHandsItOutAndSurvivesAMigrationUnchanged() throws {
        let fixed = ObjectId.generate(), uuid = UUID()
        do {
            let db = try Database(configuration: configuration([Types.Everything.self], version: 1))
            try db.write {
                let first = Types.Everything(), second = Types.Everything()
                (first._id, first.flag, first.small, first.medium, first.large, first.huge) = (1, true, -8, nil, 1 << 30, .max)
                (first.ratio, first.height, first.name, first.photo) = (0.1, -0.0, "Ann ✓", Data([0, 255]))
                (first.born, first.balance, first.oid, first.ref) = (Date(timeIntervalSinceReferenceDate: 1.5), Decimal128(1) / 3, fixed, uuid)
                first.extra = .list([.int(1), .string("x"), .map(["k": .bool(true)])])
                first.next = second
                first.tags.append(objectsIn: ["a", "b", "a"])
                first.codes.insert(3)
                first.codes.insert(1)
                first.scores["math"] = 9.5
                first.scores["art"] = nil
                second._id = 2
                second.extra = .object(first)
                try db.add(first)
            }
        }
        let before = try Database(configuration: configuration([Types.Everything.self], version: 1)).storeSnapshot
        let records = { (snapshot: Snapshot) in
            snapshot.keyspaces.filter { $0.rawValue >= ObjectFormat.firstClassID }.flatMap { keyspace in
                snapshot.keys(in: keyspace).map { try? snapshot.value(for: $0, in: keyspace) }
            }
        }
        let seen = Locked<[String: String]>([:])
        let db = try Database(configuration: configuration([Types.Everything.self], version: 2) { migration, _ in
            migration.enumerateObjects(ofType: "Everything") { oldObject, newObject in
                guard let old = oldObject, let new = newObject, old["_id"] as? Int == 1 else { return }
                for name in ["small", "large", "huge"] { XCTAssertTrue(old[name] is Int && new[name] is Int, name) }
                XCTAssertNil(old["medium"])
                XCTAssertTrue(old["flag"] is Bool && old["ratio"] is Float && old["height"] is Double && old["name"] is String)
                XCTAssertTrue(old["photo"] is Data && old["born"] is Date && old["balance"] is Decimal128)
                XCTAssertEqual(old["oid"] as? ObjectId, fixed)
                XCTAssertEqual(old["ref"] as? UUID, uuid)
                XCTAssertTrue(old["extra"] is AnyValue)
                XCTAssertEqual((old["next"] as? MigrationObject)?["_id"] as? Int, 2)
                XCTAssertEqual(old["tags"] as? [String], ["a", "b", "a"])
                XCTAssertEqual(Set(old["codes"] as? [Int] ?? []), [1, 3])
                let scores = old["scores"] as? [String: Any] ?? [:]
                XCTAssertEqual(scores["math"] as? Double, 9.5)
                seen.withLock { $0["visited"] = "yes" }
            }
        })
        XCTAssertEqual(seen.withLock { $0["visited"] }, "yes")
        XCTAssertEqual(records(db.storeSnapshot), records(before), "a migration that changes no value rewrites no record")
        let first = db.object(ofType: Types.Everything.self, forPrimaryKey: 1)
        XCTAssertEqual(first?.huge, .max)
        XCTAssertEqual(first?.next?._id, 2)
        XCTAssertEqual(db.object(ofType: Types.Everything.self, forPrimaryKey: 2)?.extra.objectValue(Types.Everything.self)?._id, 1)
        assertClean(db)
    }
}
