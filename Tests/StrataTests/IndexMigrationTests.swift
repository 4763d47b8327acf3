import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Testing) @testable import Strata

/// `Tag` before and after `indexed: true` was added to its `label`.
final class TagV1: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var label: String
    override class func className() -> String { "Tag" }
}

final class TagV2: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var label: String
    override class func className() -> String { "Tag" }
}

/// `Tag` with its `label` removed.
final class TagV3: Object {
    @Persisted(primaryKey: true) var id: Int
    override class func className() -> String { "Tag" }
}

/// What opening a database does with indexes the catalog does not record as current: a
/// writable open rebuilds an old format's indexes and builds or drops a property's index as its
/// declaration changed, in one commit; a read-only open leaves them and scans.
final class IndexMigrationTests: XCTestCase {
    private let fileSystem = MemoryFileSystem()

    private func open(_ types: [ObjectBase.Type], readOnly: Bool = false) throws -> Database {
        var configuration = Database.Configuration(directory: URL(fileURLWithPath: "/db"), objectTypes: types)
        configuration.storageOptions.fileSystem = fileSystem
        configuration.storageOptions.readOnly = readOnly
        return try Database(configuration: configuration)
    }

    /// Runs `body` on the store alone (no database open), committing what it adds to a batch.
    private func editStore(_ body: (Snapshot, inout WriteBatch) throws -> Void) throws {
        var options = Store.Options()
        options.fileSystem = fileSystem
        let store = try Store(directory: "/db", options: options)
        var batch = WriteBatch()
        try body(store.snapshot(), &batch)
        try store.commit(batch)
        try store.close()
    }

    private func labels(_ db: Database, _ label: String) -> [Int] {
        db.objects(TagV2.self).where { $0.label == label }.map(\.id)
    }

    private func labelProperty(_ db: Database) -> PropertySchema { db.schemas.schema(for: TagV2.self)!["label"]! }

    /// Adds tags 0..<count labelled t0…t3 in turn, of the version `db` was opened with.
    private func addTags(_ db: Database, count: Int) throws {
        let indexed = db.schemas.schema(for: TagV2.self) != nil
        try db.write {
            for id in 0..<count {
                let tag: Object = indexed ? TagV2(value: ["id": id, "label": "t\(id % 4)"]) : TagV1(value: ["id": id, "label": "t\(id % 4)"])
                try db.add(tag)
            }
        }
    }

    // MARK: Format 1

    /// Rewrites the database's indexes as format 1 wrote them (one record per value, its value
    /// in record encoding, listing the object keys) and its catalog without the format and the
    /// `isIndexed` flags.
    private func downgradeToFormat1() throws {
        try editStore { snapshot, batch in
            var byValue: [[UInt8]: [StorageKey]] = [:]
            for entry in snapshot.entries(in: ObjectFormat.indexKeyspace) {
                batch.delete(entry.key, in: ObjectFormat.indexKeyspace)
                let bytes = entry.key.bytes
                let start = try XCTUnwrap(Database.objectKeyStart(ofEntry: entry.key))
                let value = try bytes.withUnsafeBytes { try XCTUnwrap(IndexKeyEncoding.decodeValue(UnsafeRawBufferPointer(rebasing: $0[8...]))) }
                var oldKey = Array(bytes.prefix(8))
                oldKey.append(encoding: OldValue(value: value.value))
                byValue[oldKey, default: []].append(StorageKey(bytes[start...]))
            }
            for (key, objects) in byValue {
                var list: [UInt8] = [UInt8(objects.count)]
                for object in objects.sorted() { list += [UInt8(object.count)] + object.bytes }
                batch.put(list, forKey: StorageKey(key), in: ObjectFormat.indexKeyspace)
            }
            let catalogBytes = try XCTUnwrap(try snapshot.value(for: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace))
            var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(catalogBytes)) as? [String: Any])
            XCTAssertNotNil(json.removeValue(forKey: "indexFormat"))
            json["classes"] = (json["classes"] as? [[String: Any]])?.map { entry in
                var entry = entry
                entry["properties"] = (entry["properties"] as? [[String: Any]])?.map { $0.filter { $0.key != "isIndexed" } }
                return entry
            }
            batch.put(Array(try JSONSerialization.data(withJSONObject: json)), forKey: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace)
        }
    }

    private struct OldValue: ByteEncodable {
        let value: FieldValue
        func write<Sink: ByteSink>(to writer: inout ByteWriter<Sink>) { writer.value(value) }
    }

    private func indexKeys(_ db: Database) -> [StorageKey] {
        db.shared.store.snapshot().keys(in: ObjectFormat.indexKeyspace)
    }

    func testAReadOnlyOpenOfFormat1ScansAndLeavesTheOldRecords() throws {
        try addTags(try open([TagV2.self]), count: 20)
        try downgradeToFormat1()
        let db = try open([TagV2.self], readOnly: true)
        XCTAssertEqual(indexKeys(db).count, 4, "format 1: one record per value")
        XCTAssertFalse(labelProperty(db).indexIsUsable)
        XCTAssertEqual(labels(db, "t1"), [1, 5, 9, 13, 17])
        XCTAssertEqual(db.objects(TagV2.self).where { $0.label >= "t2" }.count, 10)
        XCTAssertNil(db.readFailure)
        XCTAssertTrue(db.checkIntegrity().notes.contains { $0.contains("older format") }, "\(db.checkIntegrity())")
        XCTAssertEqual(indexKeys(db).count, 4)
    }

    /// A second open of files whose catalog holds the classes and their indexes commits nothing
    /// and takes no writer lock, and still reads the indexes.
    func testAnOpenThatChangesNothingStillUsesTheIndexes() throws {
        let first = try open([TagV2.self])
        try addTags(first, count: 20)
        let sequence = first.shared.store.sequence
        let second = try open([TagV2.self])
        XCTAssertEqual(second.shared.store.sequence, sequence, "nothing to commit")
        XCTAssertTrue(labelProperty(second).indexIsUsable)
        XCTAssertEqual(labels(second, "t1"), [1, 5, 9, 13, 17])
        let readOnly = try open([TagV2.self], readOnly: true)
        XCTAssertTrue(labelProperty(readOnly).indexIsUsable)
    }

    func testAWritableOpenOfFormat1RebuildsTheIndexesInOneCommit() throws {
        try addTags(try open([TagV2.self]), count: 20)
        try downgradeToFormat1()
        let db = try open([TagV2.self])
        XCTAssertTrue(labelProperty(db).indexIsUsable)
        XCTAssertEqual(try Catalog.load(from: db.shared.store.snapshot()).indexFormat, ObjectFormat.indexFormat)
        XCTAssertEqual(indexKeys(db).count, 20, "one entry per object")
        XCTAssertEqual(labels(db, "t1"), [1, 5, 9, 13, 17])
        let report = db.checkIntegrity()
        XCTAssertEqual(report.problems, [])
        XCTAssertEqual(report.indexEntriesChecked, 20)
    }

    // MARK: Declarations that change

    func testDeclaringAnIndexBuildsItAndDroppingItDeletesIt() throws {
        try addTags(try open([TagV1.self]), count: 12)
        do {
            let db = try open([TagV2.self])
            XCTAssertEqual(indexKeys(db).count, 12)
            XCTAssertEqual(labels(db, "t2"), [2, 6, 10])
            let query = db.objects(TagV2.self).where { $0.label == "t2" }.query
            XCTAssertNotNil(IndexPlan.make(for: try XCTUnwrap(query.predicate), schema: query.schema))
            XCTAssertEqual(db.checkIntegrity().problems, [])
        }
        do {
            let db = try open([TagV1.self])
            XCTAssertEqual(indexKeys(db).count, 0)
            try db.write { db.object(ofType: TagV1.self, forPrimaryKey: 2)!.label = "changed" }
        }
        let db = try open([TagV2.self])
        XCTAssertEqual(labels(db, "t2"), [6, 10])
        XCTAssertEqual(labels(db, "changed"), [2])
        XCTAssertEqual(db.checkIntegrity().problems, [])
    }

    func testRemovingAnIndexedPropertyDropsItsEntries() throws {
        try addTags(try open([TagV2.self]), count: 12)
        do {
            let db = try open([TagV3.self])
            XCTAssertEqual(indexKeys(db).count, 0)
            XCTAssertEqual(try Catalog.load(from: db.shared.store.snapshot()).classes.flatMap(\.properties).filter(\.isIndexed).count, 0)
            XCTAssertEqual(db.checkIntegrity().problems, [])
        }
        // Declared again: the records still hold it, and its index is built again.
        let db = try open([TagV2.self])
        XCTAssertEqual(labels(db, "t2"), [2, 6, 10])
        XCTAssertEqual(db.checkIntegrity().problems, [])
    }

    func testAReadOnlyOpenDoesNotUseAnIndexDeclaredSinceTheLastWritableOne() throws {
        try addTags(try open([TagV1.self]), count: 8)
        let db = try open([TagV2.self], readOnly: true)
        XCTAssertFalse(labelProperty(db).indexIsUsable)
        XCTAssertEqual(labels(db, "t3"), [3, 7])
    }

    // MARK: Rebuilds in parts

    private struct Interrupted: Error {}

    /// Reconciles the store's indexes with `types` as a writable open would, with parts of
    /// `chunkBytes`; the commit of part `failing` (counted from 1) throws, as a crash there
    /// would leave the store. Returns the number of parts committed.
    private func reconcile(to types: [ObjectBase.Type], chunkBytes: Int, failing: Int? = nil) throws -> Int {
        var options = Store.Options()
        options.fileSystem = fileSystem
        let store = try Store(directory: "/db", options: options)
        defer { try? store.close() }
        let schemas = try SchemaSet(types)
        var catalog = try Catalog.load(from: store.snapshot())
        try catalog.bind(schemas.all, schemaVersion: 0)
        var batch = WriteBatch()
        var parts = 0
        do {
            try IndexReconciler.reconcile(&catalog, schemas: schemas.all, snapshot: store.snapshot(), into: &batch, chunkBytes: chunkBytes) { part in
                parts += 1
                if parts == failing { throw Interrupted() }
                try store.commit(part)
                // Each part's catalog records no index being changed as current.
                XCTAssertEqual(try Catalog.load(from: store.snapshot()).classes.flatMap(\.properties).filter(\.isIndexed).map(\.name), [])
            }
        } catch is Interrupted {
            return parts - 1
        }
        batch.put(catalog.encoded(), forKey: ObjectFormat.catalogKey, in: ObjectFormat.catalogKeyspace)
        try store.commit(batch)
        return parts
    }

    func testARebuildLargerThanOnePartIsCommittedInPartsWithTheCatalogLast() throws {
        try addTags(try open([TagV1.self]), count: 50)
        XCTAssertGreaterThan(try reconcile(to: [TagV2.self], chunkBytes: 300), 3)
        let db = try open([TagV2.self])
        XCTAssertTrue(labelProperty(db).indexIsUsable)
        XCTAssertEqual(indexKeys(db).count, 50)
        XCTAssertEqual(labels(db, "t1").count, 13)
        XCTAssertEqual(db.checkIntegrity().problems, [])
    }

    func testADropInterruptedBetweenPartsLeavesNoIndexInUse() throws {
        try addTags(try open([TagV2.self]), count: 50)
        XCTAssertEqual(try reconcile(to: [TagV1.self], chunkBytes: 300, failing: 3), 2)
        do {
            // The entries are half deleted: a read-only open must not read them.
            let db = try open([TagV2.self], readOnly: true)
            XCTAssertFalse(labelProperty(db).indexIsUsable)
            XCTAssertEqual(labels(db, "t1").count, 13)
        }
        let db = try open([TagV2.self])
        XCTAssertEqual(indexKeys(db).count, 50)
        XCTAssertEqual(labels(db, "t1").count, 13)
        XCTAssertEqual(db.checkIntegrity().problems, [])
    }

    func testAFormat1RebuildInterruptedBetweenPartsIsStartedAgain() throws {
        try addTags(try open([TagV2.self]), count: 50)
        try downgradeToFormat1()
        XCTAssertEqual(try reconcile(to: [TagV2.self], chunkBytes: 300, failing: 4), 3)
        do {
            let db = try open([TagV2.self], readOnly: true)
            XCTAssertFalse(labelProperty(db).indexIsUsable)
            XCTAssertEqual(labels(db, "t2").count, 12)
        }
        let db = try open([TagV2.self])
        XCTAssertEqual(indexKeys(db).count, 50)
        XCTAssertEqual(db.checkIntegrity().problems, [])
    }
}
