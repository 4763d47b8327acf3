import Foundation
import XCTest

@testable import Strata

/// `SectionedChangeSet.between`, the pure diff behind sectioned results' notifications.
final class SectionedChangeSetTests: XCTestCase {
    private func path(_ section: Int, _ item: Int) -> IndexPath { IndexPath(item: item, section: section) }

    func testNothingChangedIsEmpty() {
        let sections = [(key: "a", items: [1, 2]), (key: "b", items: [3])]
        XCTAssertTrue(SectionedChangeSet.between(sections, sections, modified: []).isEmpty)
    }

    func testFromNoSectionsEveryItemOfTheNewSectionsIsInserted() {
        let changes = SectionedChangeSet.between([], [(key: "a", items: [1, 2]), (key: "b", items: [3])], modified: [])
        XCTAssertEqual(changes.sectionsToInsert, [0, 1])
        XCTAssertEqual(changes.insertions, [path(0, 0), path(0, 1), path(1, 0)])
        XCTAssertEqual(changes.deletions, [])
    }

    func testToNoSectionsOnlyTheSectionsAreDeleted() {
        let changes = SectionedChangeSet.between([(key: "a", items: [1, 2]), (key: "b", items: [3])], [], modified: [1])
        XCTAssertEqual(changes.sectionsToDelete, [0, 1])
        XCTAssertEqual(changes.deletions + changes.insertions + changes.modifications, [])
    }

    func testASectionThatMovesIsDeletedAndInsertedWithItsItems() {
        // Sections in the order of a sort (not of their keys) can swap.
        let changes = SectionedChangeSet.between(
            [(key: "a", items: [1]), (key: "b", items: [2, 3])], [(key: "b", items: [2, 3]), (key: "a", items: [1])], modified: [])
        XCTAssertEqual(changes.sectionsToDelete.count, 1)
        XCTAssertEqual(changes.sectionsToInsert.count, 1)
        guard let moved = changes.sectionsToInsert.first else { return XCTFail("no section inserted") }
        XCTAssertEqual(changes.insertions, (0..<(moved == 0 ? 2 : 1)).map { path(moved, $0) })
    }

    func testAModifiedItemIsAModificationOnlyWhereItsPositionStays() {
        let changes = SectionedChangeSet.between(
            [(key: "a", items: [1, 2, 3])], [(key: "a", items: [2, 3])], modified: [2, 3])
        // 1 deleted: 2 and 3 move up one place, so Realm reports them deleted and inserted.
        XCTAssertEqual(changes.deletions, [path(0, 0), path(0, 1), path(0, 2)])
        XCTAssertEqual(changes.insertions, [path(0, 0), path(0, 1)])
        XCTAssertEqual(changes.modifications, [])
        let inPlace = SectionedChangeSet.between([(key: "a", items: [1, 2])], [(key: "a", items: [1, 2, 3])], modified: [2])
        XCTAssertEqual(inPlace.modifications, [path(0, 1)])
        XCTAssertEqual(inPlace.insertions, [path(0, 2)])
    }

    func testAnItemThatChangesSectionIsDeletedFromOneAndInsertedIntoTheOther() {
        let changes = SectionedChangeSet.between(
            [(key: "a", items: [1, 2]), (key: "b", items: [3])], [(key: "a", items: [1]), (key: "b", items: [2, 3])], modified: [2])
        XCTAssertEqual(changes.deletions, [path(0, 1)])
        XCTAssertEqual(changes.insertions, [path(1, 0)])
        XCTAssertEqual(changes.modifications, [])
    }

    func testRestrictingKeepsOneKeysChangesAtItsOldAndNewIndexes() {
        let changes = SectionedChangeSet.between(
            [(key: "b", items: [2]), (key: "c", items: [3])], [(key: "a", items: [1]), (key: "b", items: [2, 4]), (key: "c", items: [3])],
            modified: [3])
        XCTAssertEqual(changes.restricted(toOldSection: 0, newSection: 1).insertions, [path(1, 1)])
        XCTAssertTrue(changes.restricted(toOldSection: 0, newSection: 1).sectionsToInsert.isEmpty)
        XCTAssertEqual(changes.restricted(toOldSection: nil, newSection: 0).sectionsToInsert, [0])
        XCTAssertEqual(changes.restricted(toOldSection: 1, newSection: 2).modifications, [path(1, 0)])
        XCTAssertTrue(changes.restricted(toOldSection: nil, newSection: nil).isEmpty)
    }
}
