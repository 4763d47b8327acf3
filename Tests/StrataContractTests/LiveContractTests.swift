import Foundation
import Strata
import XCTest

/// Issue 12's contract for crossing threads and freezing (`LiveContractSnippet.swift`) run on a
/// small database of the tour's models, from async code as a client would call it.
final class LiveContractTests: ContractTestCase {
    func testTheCrossingContractRuns() async throws {
        let db = try openTourDatabase()
        let rex = Dog(), ann = Person()
        rex.name = "Rex"
        try db.write {
            try db.add(ann)
            ann.dogs.append(rex)
        }
        try await crossing(db, ann: ann, rex: rex)
        XCTAssertEqual(db.objects(Dog.self).count, 2)
        XCTAssertEqual(ann.dogs.freeze().map(\.name), ["Rex"])
        XCTAssertEqual(rex.owners.freeze().count, 1)
    }
}
