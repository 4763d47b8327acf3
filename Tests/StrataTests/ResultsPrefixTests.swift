import Foundation
import XCTest

@_spi(Testing) import StrataStorage
@testable import Strata

// `prefix(k)` and `first` of results ask the query for only the first k in order: a sort keeps
// the best k as it meets them. They must be exactly the first k of the whole stable sort (ties
// in storage-key order), whatever the path the evaluation takes.

final class ResultsPrefixTests: DatabaseTestCase {
    private func ids(_ objects: some Sequence<Person>) -> [ObjectId] { objects.map(\._id) }

    /// Sorted results of every shape, each against the first k of its whole evaluation.
    private func assertPrefixesMatchTheWholeSort(_ db: Database, file: StaticString = #filePath, line: UInt = #line) {
        let shapes: [(String, (Results<Person>) -> Results<Person>)] = [
            ("large", { $0.sorted(by: \.large) }),
            ("large descending", { $0.sorted(by: \.large, ascending: false) }),
            ("medium (nils)", { $0.sorted(byKeyPath: "medium") }),
            ("height, name", { $0.sorted(by: [SortDescriptor(keyPath: "height", ascending: false), "name"]) }),
            ("filtered", { $0.filter("large != 0").sorted(by: \.large) }),
            ("distinct then sorted", { $0.distinct(by: ["name"]).sorted(by: \.large) }),
            ("unsorted, filtered", { $0.where { $0.large > 1 } }),
            ("every object", { $0 }),
        ]
        for (name, shape) in shapes {
            let whole = ids(shape(db.objects(Person.self)))
            for k in [0, 1, 2, 7, whole.count - 1, whole.count, whole.count + 3] where k >= 0 {
                let prefix = shape(db.objects(Person.self)).prefix(k)
                XCTAssertEqual(ids(prefix), Array(whole.prefix(k)), "\(name), k = \(k)", file: file, line: line)
            }
            XCTAssertEqual(shape(db.objects(Person.self)).first?._id, whole.first, name, file: file, line: line)
        }
    }

    func testPrefixesAreTheFirstOfTheWholeSortOnColumns() throws {
        let db = try open()
        try addRandomPeople(to: db, count: 200, seed: 3)
        assertPrefixesMatchTheWholeSort(db)
    }

    func testPrefixesAreTheFirstOfTheWholeSortInsideAWrite() throws {
        let db = try open()
        try addRandomPeople(to: db, count: 120, seed: 4)
        // Inside a write the query decodes each object instead of reading columns.
        try db.write { assertPrefixesMatchTheWholeSort(db) }
    }

    func testPrefixOfACollectionKeepsItsOrderForTies() throws {
        let db = try ResultsOperationTests.pack(try open([ODog.self, OOwner.self]))
        let ann = try XCTUnwrap(db.object(ofType: OOwner.self, forPrimaryKey: "Ann"))
        // dogs: [Rex 5, Fido 2, Rex 5]; the two Rex entries tie and keep the list's order.
        XCTAssertEqual(ann.dogs.sorted(by: \.age, ascending: false).prefix(2).map(\.name), ["Rex", "Rex"])
        XCTAssertEqual(ann.dogs.sorted(by: \.age).prefix(1).map(\.name), ["Fido"])
        XCTAssertEqual(ann.dogs.sorted(by: \.age).first?.name, "Fido")
    }

    func testPrefixAndFirstOfNothing() throws {
        let db = try open()
        XCTAssertEqual(db.objects(Person.self).sorted(by: \.large).prefix(5).count, 0)
        XCTAssertNil(db.objects(Person.self).sorted(by: \.large).first)
        XCTAssertNil(db.objects(Person.self).first)
    }

    func testAPrefixReadsTheVersionItIsTakenAt() throws {
        let db = try open()
        try addRandomPeople(to: db, count: 50, seed: 5)
        let sorted = db.objects(Person.self).sorted(by: \.large)
        let smallest = try XCTUnwrap(sorted.first)
        try db.write { smallest.large = 100 }
        XCTAssertNotEqual(sorted.prefix(1).first?._id, smallest._id)
        XCTAssertEqual(sorted.prefix(100).last?._id, smallest._id)
        let frozen = sorted.freeze()
        try db.write { db.objects(Person.self).forEach { $0.large = 0 } }
        XCTAssertEqual(frozen.prefix(100).last?.large, 100)
        XCTAssertEqual(frozen.count, 50)
    }

    func testReadingBeyondAPrefixEvaluatesEveryMatch() throws {
        let db = try open()
        try addRandomPeople(to: db, count: 80, seed: 6)
        let sorted = db.objects(Person.self).sorted(by: \.height)
        let whole = ids(db.objects(Person.self).sorted(by: \.height))
        XCTAssertEqual(ids(sorted.prefix(3)), Array(whole.prefix(3)))
        XCTAssertEqual(sorted[40]._id, whole[40])
        XCTAssertEqual(ids(sorted), whole)
    }

    // MARK: The selection

    func testSmallestElementsAreTheFirstOfTheSortedSequence() {
        var random = SplitMix64(seed: 9)
        for _ in 0..<200 {
            let values = (0..<Int.random(in: 0...60, using: &random)).map { _ in Int.random(in: 0...9, using: &random) }
            let capacity = Int.random(in: 0...70, using: &random)
            var best = SmallestElements<IntegerSortKey>(capacity: capacity)
            for (slot, value) in values.enumerated() { best.offer(IntegerSortKey(value: Int64(value), slot: slot)) }
            let expected = values.indices.sorted { (values[$0], $0) < (values[$1], $1) }.prefix(capacity)
            XCTAssertEqual(best.sorted().map { $0.slot }, Array(expected))
        }
    }

    func testABoundedOrderingKeepsTheCountOfEveryMatch() {
        let values: [FieldValue] = [.int(3), .null, .int(1), .double(0.5), .int(1)]
        let columns = OrderingColumns(count: values.count, values: [values], unlinked: [nil])
        let ordering = QueryOrdering().sorted(by: [QuerySortKey(path: QueryPath(), ascending: true)])
        let (positions, count) = ordering.order(columns, limit: 3)
        XCTAssertEqual(positions, [1, 3, 2])   // null first, then 0.5, then the first of the two 1s
        XCTAssertEqual(count, 5)
        XCTAssertEqual(ordering.order(columns, limit: nil).positions, [1, 3, 2, 4, 0])
    }
}
