import Foundation
import StrataStorage
import XCTest

@testable import Strata

extension Dog {
    /// The section key of Realm's sectioned-results tests: a computed, non-persisted property.
    var firstLetter: String { String(name.prefix(1)) }
}

/// `Results.sectioned(by:…)`: sections, their order and contents, live and frozen — after
/// Realm's SectionedResultsTests.
final class SectionedResultsTests: DatabaseTestCase {
    /// Realm's fixture: banana, box, apple and chalk (added in that order), with ages.
    private func openWithFruit() throws -> Database {
        let db = try open()
        try db.write {
            for (name, age, breed) in [("banana", 4, "pug"), ("box", 2, nil), ("apple", 4, "lab"), ("chalk", 7, nil)] {
                let dog = Dog()
                dog.name = name
                dog.age = age
                dog.breed = breed
                try db.add(dog)
            }
        }
        return db
    }

    private func names(_ sections: SectionedResults<String, Dog>) -> [[String]] {
        sections.map { $0.map(\.name) }
    }

    func testSectionsComeInKeyOrderAndObjectsInTheOrderOfTheSortedProperty() throws {
        let db = try openWithFruit()
        let ascending = db.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
        XCTAssertEqual(ascending.count, 3)
        XCTAssertEqual(ascending.map(\.key), ["a", "b", "c"])
        XCTAssertEqual(names(ascending), [["apple"], ["banana", "box"], ["chalk"]])
        let descending = db.objects(Dog.self).sectioned(by: \.firstLetter, ascending: false)
        XCTAssertEqual(descending.map(\.key), ["c", "b", "a"])
        XCTAssertEqual(names(descending), [["chalk"], ["box", "banana"], ["apple"]])
    }

    func testTheSortDescriptorFormsSectionInTheOrderOfTheSort() throws {
        let db = try openWithFruit()
        let dogs = db.objects(Dog.self)
        for ascending in [true, false] {
            let sort = [SortDescriptor(keyPath: "name", ascending: ascending)]
            let expected = ascending ? ["a", "b", "c"] : ["c", "b", "a"]
            XCTAssertEqual(dogs.sectioned(by: \.firstLetter, sortDescriptors: sort).allKeys, expected)
            XCTAssertEqual(dogs.sectioned(by: { String($0.name.first!) }, sortDescriptors: sort).allKeys, expected)
            XCTAssertEqual(dogs.sectioned(sortDescriptors: sort) { String($0.name.prefix(1)) }.allKeys, expected)
        }
        // Sections follow the sort, not the keys: by age, "a" (4) and "b" (2, 4) interleave.
        let byAge = dogs.sectioned(by: \.firstLetter, sortDescriptors: ["age", "name"])
        XCTAssertEqual(byAge.allKeys, ["b", "a", "c"])
        XCTAssertEqual(names(byAge), [["box", "banana"], ["apple"], ["chalk"]])
    }

    func testAnInvalidSortKeyPathFromInputIsAnError() throws {
        let db = try openWithFruit()
        XCTAssertThrowsError(try db.objects(Dog.self).sectioned(by: \.firstLetter, checking: ["weight"])) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidQuery)
        }
        let unsorted = try db.objects(Dog.self).sectioned(by: \.age, checking: [])
        XCTAssertEqual(unsorted.allKeys, [4, 2, 7], "no sort descriptors: the results' order, sections as they come")
    }

    func testAllKeysAndSubscripts() throws {
        let db = try openWithFruit()
        let sections = db.objects(Dog.self).sectioned(by: \.firstLetter, ascending: true)
        XCTAssertEqual(sections.allKeys, ["a", "b", "c"])
        let section = sections[1]
        XCTAssertEqual(section.key, "b")
        XCTAssertEqual(section.id, "b")
        XCTAssertEqual(section.count, 2)
        XCTAssertEqual(section[1].name, "box")
        XCTAssertEqual(sections[IndexPath(item: 1, section: 1)].name, "box")
        XCTAssertEqual(sections[IndexPath(item: 0, section: 0)].name, "apple")
        XCTAssertEqual(IndexPath(item: 3, section: 2).section, 2)
        XCTAssertEqual(IndexPath(item: 3, section: 2).item, 3)
    }

    func testKeysOfOtherTypes() throws {
        let db = try openWithFruit()
        let dogs = db.objects(Dog.self)
        let byAge: SectionedResults<Int, Dog> = dogs.sectioned(by: \.age, ascending: false)
        XCTAssertEqual(byAge.allKeys, [7, 4, 2])
        XCTAssertEqual(byAge[1].map(\.name), ["banana", "apple"], "ties in the results' order")
        // Optional keys: nil first ascending, last descending (Realm's order).
        XCTAssertEqual(dogs.sectioned(by: \.breed).allKeys, [nil, "lab", "pug"])
        XCTAssertEqual(dogs.sectioned(by: \.breed, ascending: false).allKeys, ["pug", "lab", nil])
        XCTAssertEqual(dogs.sectioned(by: \.breed)[0].map(\.name), ["box", "chalk"])
        // A key that is not Comparable (Bool): sections in the order of the sorted property.
        try db.write {
            for (name, active, day) in [("Ann", true, 2.0), ("Bob", false, 1.0), ("Cy", true, 1.0)] {
                let person = Person()
                person.name = name
                person.active = active
                person.birthdate = Date(timeIntervalSince1970: day * 86_400)
                try db.add(person)
            }
        }
        let people = db.objects(Person.self)
        XCTAssertEqual(people.sectioned(by: \.active).allKeys, [false, true])
        XCTAssertEqual(people.sectioned(by: \.active, ascending: false).allKeys, [true, false])
        let byDay = people.sectioned(by: \.birthdate)
        XCTAssertEqual(byDay.allKeys.map(\.timeIntervalSince1970), [86_400, 172_800])
        XCTAssertEqual(byDay[0].map(\.name), ["Bob", "Cy"])
    }

    func testAKeyPathReadingNoPersistedPropertyKeepsTheResultsOrder() throws {
        let db = try open()
        try db.write {
            for (name, height, scratch) in [("Ann", 1.5, 2), ("Bob", 1.9, 1), ("Cy", 1.7, 2)] {
                let person = Person()
                person.name = name
                person.height = height
                person.scratch = scratch
                try db.add(person)
            }
        }
        // `scratch` is not persisted: read back it is 0 for every object, so one section, in
        // the results' order (by height, descending).
        let sections = db.objects(Person.self).sorted(by: \.height, ascending: false).sectioned(by: \.scratch)
        XCTAssertEqual(sections.allKeys, [0])
        XCTAssertEqual(sections[0].map(\.name), ["Bob", "Cy", "Ann"])
    }

    func testAKeyPathReadingTwoPropertiesSortsNothingButSectionsComeInKeyOrder() throws {
        let db = try openWithFruit()
        let sections = db.objects(Dog.self).sectioned(by: \.ageAndName)
        XCTAssertEqual(sections.allKeys, ["2-box", "4-apple", "4-banana", "7-chalk"])
        XCTAssertEqual(db.objects(Dog.self).sectioned(by: \.ageAndName, ascending: false).allKeys, ["7-chalk", "4-banana", "4-apple", "2-box"])
    }

    func testEmptyResultsHaveNoSections() throws {
        let db = try open()
        let sections = db.objects(Dog.self).sectioned(by: \.firstLetter)
        XCTAssertEqual(sections.count, 0)
        XCTAssertTrue(sections.isEmpty)
        XCTAssertEqual(sections.allKeys, [])
        XCTAssertNil(sections.first)
        XCTAssertEqual(Array(sections).count, 0)
    }

    func testLiveSectionsReadTheLatestCommitAndTheOpenWrite() throws {
        let db = try openWithFruit()
        let sections = db.objects(Dog.self).sectioned(by: \.firstLetter)
        let b = sections[1]
        XCTAssertEqual(b.count, 2)
        try db.write {
            let dog = Dog()
            dog.name = "zebra"
            try db.add(dog)
            XCTAssertEqual(sections.allKeys, ["a", "b", "c", "z"], "the open write's changes are seen")
            for dog in db.objects(Dog.self) where dog.name.hasPrefix("b") { try db.delete(dog) }
        }
        XCTAssertEqual(sections.allKeys, ["a", "c", "z"])
        XCTAssertTrue(b.isInvalidated)
        XCTAssertEqual(b.count, 0, "a section whose key is gone is empty")
        XCTAssertFalse(sections[0].isInvalidated)
    }

    func testAWriteDuringIterationDoesNotChangeWhatTheWalkYields() throws {
        let db = try openWithFruit()
        let sections = db.objects(Dog.self).sectioned(by: \.firstLetter)
        var walked: [String] = []
        try db.write {
            for dog in sections[1] {
                walked.append(dog.name)
                let added = Dog()
                added.name = "bx\(walked.count)"
                try db.add(added)
            }
        }
        XCTAssertEqual(walked, ["banana", "box"])
        XCTAssertEqual(sections[1].count, 4)
    }

    func testFrozenSectionedResultsKeepTheirVersionAndThawReadsTheLatest() throws {
        let db = try openWithFruit()
        for ascending in [true, false] {
            let frozen = db.objects(Dog.self).sectioned(by: \.firstLetter, ascending: ascending).freeze()
            let frozenFirst = frozen[0].freeze()
            let fromFrozenResults = db.objects(Dog.self).freeze().sectioned(by: \.firstLetter, ascending: ascending)
            let before = frozen.allKeys
            try db.write {
                let dog = Dog()
                dog.name = ascending ? "d" : "e"
                try db.add(dog)
            }
            for sections in [frozen, fromFrozenResults] {
                XCTAssertTrue(sections.isFrozen)
                XCTAssertEqual(sections.allKeys, before)
                let thawed = sections.thaw()
                XCTAssertFalse(thawed.isFrozen)
                XCTAssertEqual(thawed.count, before.count + 1)
                XCTAssertEqual(thawed.allKeys, ascending ? before + ["d"] : ["e"] + before)
            }
            XCTAssertTrue(frozenFirst.isFrozen)
            XCTAssertEqual(frozenFirst.count, 1)
            XCTAssertEqual(frozenFirst.thaw().key, frozenFirst.key)
            XCTAssertFalse(db.objects(Dog.self).sectioned(by: \.firstLetter).isFrozen)
        }
        let frozenA = db.objects(Dog.self).sectioned(by: \.firstLetter)[0].freeze()
        try db.write {
            let dog = Dog()
            dog.name = "ax"
            try db.add(dog)
        }
        XCTAssertEqual(frozenA.map(\.name), ["apple"])
        XCTAssertEqual(frozenA.thaw().map(\.name), ["apple", "ax"], "thawed: the live section of its key")
    }

    func testEqualityIsIdentity() throws {
        let db = try openWithFruit()
        let dogs = db.objects(Dog.self)
        let sections = dogs.sectioned(by: \.firstLetter)
        let copy = sections
        XCTAssertEqual(sections, copy)
        XCTAssertNotEqual(sections, dogs.sectioned(by: \.firstLetter))
        XCTAssertEqual(sections[0], copy[0])
        XCTAssertNotEqual(sections[0], sections[1])
    }

    func testSectionKeyOrderOrdersOptionalsAndRefusesMixedOrIncomparableKeys() {
        XCTAssertEqual(SectionKeyOrder.sortedIndices([3, 1, 2], ascending: true), [1, 2, 0])
        XCTAssertEqual(SectionKeyOrder.sortedIndices(["b", nil, "a"] as [String?], ascending: true), [1, 2, 0])
        XCTAssertEqual(SectionKeyOrder.sortedIndices(["b", nil, "a"] as [String?], ascending: false), [0, 2, 1])
        XCTAssertEqual(SectionKeyOrder.sortedIndices([.some(nil), .some("a"), nil] as [String??], ascending: true), [0, 2, 1])
        XCTAssertNil(SectionKeyOrder.sortedIndices([true, false], ascending: true))
        XCTAssertNil(SectionKeyOrder.sortedIndices([1, "a"] as [AnyHashable], ascending: true))
        XCTAssertEqual(SectionKeyOrder.sortedIndices([Double.nan, 1, 0], ascending: true)?.count, 3, "NaN does not trap")
    }
}

extension Dog {
    /// A computed key that reads two persisted properties: no property to sort by.
    var ageAndName: String { "\(age)-\(name)" }
}
