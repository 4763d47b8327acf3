import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

// Queries through links, embedded objects, collections, maps and backlinks, typed and as
// strings, checked against answers computed in Swift from the same data (Realm's semantics:
// ANY by default through to-many paths, nil links give null, aggregates skip nulls).

final class QDog: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "dogs") var owners: LinkingObjects<QPerson>
}

final class QAddress: EmbeddedObject {
    @Persisted var city: String
}

final class QPerson: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var dog: QDog?
    @Persisted var dogs: List<QDog>
    @Persisted var address: QAddress?
    @Persisted var nicknames: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var extra: AnyValue
}

final class LinkQueryTests: DatabaseTestCase {
    /// Ann: dog Rex(5), dogs Rex, Fido(2); Lyon; Annie; math 7. Bob: no dog, dogs Rover(9);
    /// Paris; math 3, art 9. Cy: dog Fido, no dogs, no address, no scores.
    func people() throws -> Database {
        let db = try open([QDog.self, QPerson.self, QAddress.self])
        try db.write {
            let rex = QDog(), fido = QDog(), rover = QDog(), lonely = QDog()
            (rex.name, rex.age, fido.name, fido.age, rover.name, rover.age, lonely.name, lonely.age) = ("Rex", 5, "Fido", 2, "Rover", 9, "Lonely", 4)
            let ann = QPerson(), bob = QPerson(), cy = QPerson()
            ann.name = "Ann"; ann.dog = rex; ann.dogs.append(objectsIn: [rex, fido])
            ann.address = QAddress(); ann.address?.city = "Lyon"
            ann.nicknames.insert("Annie"); ann.scores["math"] = 7; ann.extra = .int(3)
            bob.name = "Bob"; bob.dogs.append(rover)
            bob.address = QAddress(); bob.address?.city = "Paris"
            bob.scores["math"] = 3; bob.scores["art"] = 9; bob.extra = .string("x")
            cy.name = "Cy"; cy.dog = fido
            for object in [rex, fido, rover, lonely] { try db.add(object) }
            for object in [ann, bob, cy] { try db.add(object) }
        }
        return db
    }

    private func names(_ results: Results<QPerson>) -> [String] { results.map(\.name).sorted() }
    private func dogNames(_ results: Results<QDog>) -> [String] { results.map(\.name).sorted() }

    func testTypedKeyPathsThroughLinksCollectionsMapsAndBacklinks() throws {
        let db = try people()
        let people = db.objects(QPerson.self)
        XCTAssertEqual(names(people.where { $0.dog.age > 3 }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.dogs.age > 3 }), ["Ann", "Bob"])
        XCTAssertEqual(names(people.where { $0.dogs.age < 3 }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.dogs.count > 1 }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.dogs.count == 0 }), ["Cy"])
        XCTAssertEqual(names(people.where { $0.address.city == "Lyon" }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.scores["math"] > 5 }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.scores["art"] > 5 }), ["Bob"])
        XCTAssertEqual(names(people.where { $0.scores.keys == "art" }), ["Bob"])
        XCTAssertEqual(names(people.where { $0.scores.count == 2 }), ["Bob"])
        XCTAssertEqual(names(people.where { $0.nicknames.contains("Annie") }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.dogs.name.in(["Rover", "Nobody"]) }), ["Bob"])
        let dogs = db.objects(QDog.self)
        XCTAssertEqual(dogNames(dogs.where { $0.owners.count == 0 }), ["Lonely"])
        XCTAssertEqual(dogNames(dogs.where { $0.owners.name == "Ann" }), ["Fido", "Rex"])
        XCTAssertEqual(dogNames(dogs.where { $0.name.in(["Rex", "Fido"]) }), ["Fido", "Rex"])
        XCTAssertEqual(dogNames(dogs.where { $0.age.contains(2...5) }), ["Fido", "Lonely", "Rex"])
        XCTAssertEqual(dogNames(dogs.where { $0.age.contains(2..<5) }), ["Fido", "Lonely"])
        XCTAssertEqual(dogNames(dogs.where { $0.name.like("R*") }), ["Rex", "Rover"])
        XCTAssertEqual(dogNames(dogs.where { $0.name.starts(with: "r", options: [.caseInsensitive, .diacriticInsensitive]) }), ["Rex", "Rover"])
        let rex = try XCTUnwrap(db.object(ofType: QDog.self, forPrimaryKey: "Rex"))
        XCTAssertEqual(names(people.where { $0.dogs.contains(rex) }), ["Ann"])
        XCTAssertEqual(names(people.where { $0.dog == rex }), ["Ann"])
    }

    func testStringPredicatesThroughLinksWithQuantifiersAggregatesAndSubqueries() throws {
        let db = try people()
        let people = db.objects(QPerson.self)
        func check(_ format: String, _ args: Any..., expect: [String], line: UInt = #line) {
            do {
                let results = try people.filter(checking: format, args)
                XCTAssertEqual(names(results), expect, format, line: line)
            } catch {
                XCTFail("\(format): \(error)", line: line)
            }
        }
        check("dog.age > 3", expect: ["Ann"])
        check("dog.age == nil", expect: ["Bob"])
        check("dog == nil", expect: ["Bob"])
        check("ANY dogs.age > %@", 3, expect: ["Ann", "Bob"])
        check("SOME dogs.age > 3", expect: ["Ann", "Bob"])
        check("dogs.age > 3", expect: ["Ann", "Bob"])
        check("ALL dogs.age > 3", expect: ["Bob", "Cy"])          // Cy has no dogs: ALL holds
        check("NONE dogs.name == 'Fido'", expect: ["Bob", "Cy"])
        check("ALL dogs.age > 1 AND NONE dogs.name == 'Fido'", expect: ["Bob", "Cy"])
        check("dogs.@count > 1", expect: ["Ann"])
        check("dogs.@size == 0", expect: ["Cy"])
        check("dogs.@avg.age >= 3.5", expect: ["Ann", "Bob"])
        check("dogs.@avg.age >= 2.5 AND dogs.@count > 1", expect: ["Ann"])
        check("dogs.@sum.age == 7", expect: ["Ann"])
        check("dogs.@min.age == 2", expect: ["Ann"])
        check("dogs.@max.age == 9", expect: ["Bob"])
        check("dogs.@max.age == nil", expect: ["Cy"])
        check("SUBQUERY(dogs, $d, $d.age > 3 AND $d.name BEGINSWITH 'R').@count > 0", expect: ["Ann", "Bob"])
        check("SUBQUERY(dogs, $d, $d.age < 3).@count == 1", expect: ["Ann"])
        check("address.city == 'Lyon'", expect: ["Ann"])
        check("address == nil", expect: ["Cy"])
        check("scores['math'] > 5", expect: ["Ann"])
        check("scores.@allKeys == 'art'", expect: ["Bob"])
        check("scores.@allValues > 8", expect: ["Bob"])
        check("scores.@count == 0", expect: ["Cy"])
        check("scores.@sum > 10", expect: ["Bob"])
        check("ANY nicknames == 'Annie'", expect: ["Ann"])
        check("'Annie' IN nicknames", expect: ["Ann"])
        check("extra.@type == 'int'", expect: ["Ann"])
        check("name.@size == 2", expect: ["Cy"])
        check("name BEGINSWITH[cd] %@", "á", expect: ["Ann"])
        check("dogs.name CONTAINS[c] 'OV'", expect: ["Bob"])
        let fido = try XCTUnwrap(db.object(ofType: QDog.self, forPrimaryKey: "Fido"))
        check("%@ IN dogs", fido, expect: ["Ann"])
        check("dog == %@", fido, expect: ["Cy"])

        let dogs = db.objects(QDog.self)
        let ann = try XCTUnwrap(db.object(ofType: QPerson.self, forPrimaryKey: "Ann"))
        XCTAssertEqual(dogNames(dogs.filter("%@ IN owners", ann)), ["Fido", "Rex"])
        XCTAssertEqual(dogNames(dogs.filter("age BETWEEN {2, 5} AND name LIKE[c] 'r*'")), ["Rex"])
        XCTAssertEqual(dogNames(dogs.filter("@links.QPerson.dogs.@count > 0")), ["Fido", "Rex", "Rover"])
        XCTAssertEqual(dogNames(dogs.filter("@links.QPerson.dog.@count > 0")), ["Fido", "Rex"])
        XCTAssertEqual(dogNames(dogs.filter("owners.@count == 0")), ["Lonely"])
        XCTAssertEqual(dogNames(dogs.filter("age > %d AND age < %i", 2, 9)), ["Lonely", "Rex"])
    }

    /// String operators compare UTF-8 bytes and Unicode scalars, as equality, keys and indexes
    /// do (and Realm's operators): no canonical equivalence, with or without [c]/[d].
    func testStringOperatorsCompareBytesNotCanonicalEquivalents() throws {
        let db = try open([QDog.self, QPerson.self, QAddress.self])
        try db.write {
            for name in ["Zoe\u{301}", "Zo\u{E9}"] {
                let person = QPerson()
                person.name = name
                try db.add(person)
            }
        }
        func matches(_ format: String, _ args: Any...) throws -> [String] {
            try db.objects(QPerson.self).filter(checking: format, args).map { $0.name.unicodeScalars.count == 4 ? "decomposed" : "precomposed" }.sorted()
        }
        XCTAssertEqual(try matches("name BEGINSWITH 'Zoe'"), ["decomposed"])
        XCTAssertEqual(try matches("name ==[c] %@", "zo\u{E9}"), ["precomposed"])
        XCTAssertEqual(try matches("name LIKE 'Zo?'"), ["precomposed"])
        XCTAssertEqual(try matches("name CONTAINS[c] %@", "e\u{301}"), ["decomposed"])
        // A string literal may begin with a combining mark (the lexer reads scalars, so the
        // quote before it is still a quote).
        XCTAssertEqual(try matches("name ENDSWITH '\u{301}'"), ["decomposed"])
        XCTAssertEqual(try matches("name ENDSWITH[d] 'e'"), ["decomposed", "precomposed"])   // [d] removes both accents
    }

    func testSortingThroughAToOneLink() throws {
        let db = try people()
        let people = db.objects(QPerson.self)
        // A nil link (Bob's dog, Cy's address) sorts last ascending and first descending, as in
        // Realm's QueryTests.m testSortByKeyPath (Hannah, who has no dog).
        XCTAssertEqual(try people.sorted(checkingKeyPath: "dog.age", ascending: false).map(\.name), ["Bob", "Ann", "Cy"])
        XCTAssertEqual(try people.sorted(checkingKeyPath: "address.city").map(\.name), ["Ann", "Bob", "Cy"])
        XCTAssertThrowsError(try people.sorted(checkingKeyPath: "dogs.age")) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidQuery)
        }
    }

    func testBadPredicatesAreInvalidQueryErrorsNamingThePosition() throws {
        let db = try people()
        let people = db.objects(QPerson.self)
        let cases: [(String, String)] = [
            ("age >> 3", "QPerson has no property 'age'"),
            ("dogs.@avg.name > 3", "@avg needs numbers"),
            ("dog.@count > 1", "@count applies to"),
            ("@links.QPerson.name.@count > 0", "is not a property that links to"),
            ("SUBQUERY(dog, $d, $d.age > 3).@count > 0", "SUBQUERY needs a list"),
            ("SUBQUERY(dogs, $d, $e.age > 3).@count > 0", "unknown variable $e"),
            ("SUBQUERY(dogs, $d, $d.age > 3) > 0", "'.@count' after SUBQUERY"),
            ("ALL name == 'x'", "ALL needs a list"),
            ("scores['math' > 1", "']' to close the map key"),
            ("name['x'] == 1", "is not a map"),
            ("extra.@type > 3", "cannot compare"),
            ("dogs.age IN 3", "IN needs"),
        ]
        for (format, message) in cases {
            XCTAssertThrowsError(try people.filter(checking: format), format) { error in
                guard let error = error as? StrataError else { return XCTFail("\(format): \(error)") }
                XCTAssertEqual(error.code, .invalidQuery, format)
                XCTAssertTrue(error.message.contains(message) && error.message.contains("column"), "\(format): \(error.message)")
            }
        }
        do { _ = try db.objects(QDog.self).filter(checking: "age >> 3") } catch let e as StrataError where e.code == .invalidQuery { }
    }

    /// Random people and dogs; random predicates through links, compared with the same
    /// predicate computed in Swift over the objects.
    func testRandomLinkPredicatesAgreeWithABruteForceEvaluator() throws {
        let db = try open([QDog.self, QPerson.self, QAddress.self])
        var random = SplitMix64(seed: 0x5EED_0011)
        let dogNames = (0..<12).map { "d\($0)" }
        try db.write {
            var dogs: [QDog] = []
            for name in dogNames {
                let dog = QDog()
                dog.name = name
                dog.age = Int.random(in: 0...10, using: &random)
                try db.add(dog)
                dogs.append(dog)
            }
            for index in 0..<40 {
                let person = QPerson()
                person.name = "p\(index)"
                if Bool.random(using: &random) { person.dog = dogs.randomElement(using: &random) }
                for _ in 0..<Int.random(in: 0...3, using: &random) { person.dogs.append(dogs.randomElement(using: &random)!) }
                if Bool.random(using: &random) { person.scores["math"] = Int.random(in: 0...10, using: &random) }
                try db.add(person)
            }
        }
        let people = Array(db.objects(QPerson.self))
        for _ in 0..<200 {
            let limit = Int.random(in: 0...10, using: &random)
            let cases: [(String, (QPerson) -> Bool)] = [
                ("dog.age > \(limit)", { ($0.dog?.age).map { $0 > limit } ?? false }),
                ("ANY dogs.age > \(limit)", { $0.dogs.contains { $0.age > limit } }),
                ("ALL dogs.age <= \(limit)", { $0.dogs.allSatisfy { $0.age <= limit } }),
                ("NONE dogs.age == \(limit)", { !$0.dogs.contains { $0.age == limit } }),
                ("dogs.@count == \(limit % 4)", { $0.dogs.count == limit % 4 }),
                ("dogs.@sum.age > \(limit)", { $0.dogs.reduce(0) { $0 + $1.age } > limit }),
                ("dogs.@max.age < \(limit)", { $0.dogs.map(\.age).max().map { $0 < limit } ?? false }),
                ("scores['math'] >= \(limit)", { $0.scores["math"].map { $0 >= limit } ?? false }),
                ("SUBQUERY(dogs, $d, $d.age > \(limit)).@count >= 2", { $0.dogs.filter { $0.age > limit }.count >= 2 }),
            ]
            let (format, expected) = cases.randomElement(using: &random)!
            let got = Set(try people.isEmpty ? [] : db.objects(QPerson.self).filter(checking: format).map(\.name))
            let want = Set(people.filter(expected).map(\.name))
            XCTAssertEqual(got, want, format)
        }
    }
}
