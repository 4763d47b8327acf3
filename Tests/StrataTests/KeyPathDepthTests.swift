import Foundation
import StrataStorage
import XCTest

@testable import Strata

final class ChainLink: Object {
    @Persisted var name: String
    @Persisted var next: ChainLink?
}

/// A key path in a string (a predicate, a sort key, an observed key path) takes at most
/// `PredicateParser.maxKeyPathDepth` steps: a deeper one is a typed error naming the limit,
/// before any work proportional to its depth.
final class KeyPathDepthTests: DatabaseTestCase {
    private static func path(_ links: Int, then property: String = "name") -> String {
        String(repeating: "next.", count: links) + property
    }

    private func assertTooDeep(_ error: Error, code: StrataError.Code, file: StaticString = #filePath, line: UInt = #line) {
        let error = error as? StrataError
        XCTAssertEqual(error?.code, code, file: file, line: line)
        XCTAssertTrue(error?.message.contains("at most \(PredicateParser.maxKeyPathDepth) steps") == true, error?.message ?? "", file: file, line: line)
    }

    func testAPredicateKeyPathDeeperThanTheLimitIsAnInvalidQuery() throws {
        let db = try open([ChainLink.self])
        try db.write {
            var head = ChainLink(value: ["name": "end"])
            for index in 0..<PredicateParser.maxKeyPathDepth { head = ChainLink(value: ["name": "link \(index)", "next": head]) }
            try db.add(head)
        }
        let limit = PredicateParser.maxKeyPathDepth
        XCTAssertEqual(try db.objects(ChainLink.self).filter(checking: "\(Self.path(limit)) == 'end'").count, 1)
        for links in [limit + 1, 10_000] {
            XCTAssertThrowsError(try db.objects(ChainLink.self).filter(checking: "\(Self.path(links)) == 'end'")) {
                assertTooDeep($0, code: .invalidQuery)
            }
            XCTAssertThrowsError(try db.objects(ChainLink.self).filter(checking: "%K == 'end'", Self.path(links))) {
                assertTooDeep($0, code: .invalidQuery)
            }
        }
    }

    func testASortKeyPathDeeperThanTheLimitIsAnInvalidQuery() throws {
        let db = try open([ChainLink.self])
        let schema = try XCTUnwrap(db.schemas.schema(named: "ChainLink"))
        XCTAssertNoThrow(try PredicateParser.sortPath(Self.path(PredicateParser.maxKeyPathDepth), schema: schema, schemas: db.schemas))
        XCTAssertThrowsError(try PredicateParser.sortPath(Self.path(10_000), schema: schema, schemas: db.schemas)) {
            assertTooDeep($0, code: .invalidQuery)
        }
    }

    func testAnObservedKeyPathDeeperThanTheLimitIsRefused() throws {
        let db = try open([ChainLink.self])
        let schema = try XCTUnwrap(db.schemas.schema(named: "ChainLink"))
        XCTAssertNoThrow(try ObservedProperties(keyPaths: [Self.path(PredicateParser.maxKeyPathDepth)], schema: schema))
        XCTAssertThrowsError(try ObservedProperties(keyPaths: [Self.path(10_000)], schema: schema)) {
            assertTooDeep($0, code: .invalidArgument)
        }
    }
}
