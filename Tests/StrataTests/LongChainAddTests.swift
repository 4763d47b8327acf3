import Foundation
import XCTest

@testable import Strata

/// Adding a long chain of new linked objects does not recurse once per link (which overflowed
/// the stack at about 20,000 links): every object is stored, links and backlinks intact.
final class LongChainAddTests: DatabaseTestCase {
    final class Link: Object {
        @Persisted(primaryKey: true) var _id: Int
        @Persisted var next: Link?
        @Persisted(originProperty: "next") var previous: LinkingObjects<Link>
    }

    func testAChainOfAHundredThousandNewObjectsIsAddedWhole() throws {
        let count = 100_000
        let links = (0..<count).map { i in
            let link = Link()
            link._id = i
            return link
        }
        for i in 0..<count { links[i].next = links[(i + 1) % count] }
        let db = try open([Link.self])
        try db.write { try db.add(links[0]) }
        XCTAssertEqual(db.objects(Link.self).count, count)
        var seen = 0
        var current = db.object(ofType: Link.self, forPrimaryKey: 0)
        while let link = current, seen < count {
            XCTAssertEqual(link.next?._id, (link._id + 1) % count)
            current = link.next
            seen += 1
        }
        XCTAssertEqual(seen, count)
        XCTAssertEqual(db.object(ofType: Link.self, forPrimaryKey: 5)?.previous.first?._id, 4)
        XCTAssertTrue(db.checkIntegrity().isClean)
    }

    func testAFailedAddInAChainLeavesNoObjectHalfManaged() throws {
        let db = try open([Link.self])
        let links = (0..<200).map { i in
            let link = Link()
            link._id = i
            return link
        }
        for i in 0..<199 { links[i].next = links[i + 1] }
        try db.write {
            let stored = Link()
            stored._id = 150
            try db.add(stored)
        }
        XCTAssertThrowsError(try db.write { try db.add(links[0]) }) { XCTAssertEqual(($0 as? StrataError)?.code, .primaryKeyExists) }
        XCTAssertEqual(db.objects(Link.self).count, 1)
        XCTAssertTrue(links.allSatisfy { !$0.isManaged || $0.isInvalidated }, "nothing stays half added: unmanaged, or invalid with the rolled-back write")
        XCTAssertTrue(links.contains { !$0.isManaged }, "the deferred objects are unmanaged again")
    }
}
