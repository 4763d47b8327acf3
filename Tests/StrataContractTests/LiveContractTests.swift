import Foundation
import Strata
import XCTest

/// Issue 12's contract for crossing threads, freezing and sectioned results
/// (`LiveContractSnippet.swift`) and for the token-based notifications
/// (`NotificationContractSnippet.swift`) run on a small database of the tour's models, as a
/// client would call them.
final class LiveContractTests: ContractTestCase {
    /// A tour database holding Ann, whose dogs are Rex.
    private func annWithRex() throws -> (Database, Person, Dog) {
        let db = try openTourDatabase()
        let rex = Dog(), ann = Person()
        rex.name = "Rex"
        try db.write {
            try db.add(ann)
            ann.dogs.append(rex)
        }
        return (db, ann, rex)
    }

    func testTheCrossingContractRuns() async throws {
        let (db, ann, rex) = try annWithRex()
        try await crossing(db, ann: ann, rex: rex)
        XCTAssertEqual(db.objects(Dog.self).count, 2)
        XCTAssertEqual(ann.dogs.freeze().map(\.name), ["Rex"])
        XCTAssertEqual(rex.owners.freeze().count, 1)
    }

    func testTheNotificationContractRuns() throws {
        let (db, ann, rex) = try annWithRex()
        notifications(db, ann: ann, rex: rex)
    }

    func testTheSectionedResultsContractRuns() throws {
        let (db, _, _) = try annWithRex()
        sectionedNotifications(db)
        XCTAssertEqual(db.objects(Dog.self).sectioned(by: \.firstLetter).allKeys, ["R"])
    }
}
