import Foundation
import XCTest
@testable import Strata

final class CodablePerson: Object, Codable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var born: Date
    @Persisted var pet: CodablePet?
    @Persisted var pets: List<CodablePet>
    @Persisted var home: CodablePlace?
    @Persisted var tags: MutableSet<String>
    @Persisted var scores: Map<String, Int>
    @Persisted var extra: AnyValue
    @Persisted var level: CodableLevel?
    @Persisted var balance: Decimal128
}

final class CodablePet: Object, Codable {
    @Persisted(primaryKey: true) var name: String
    @Persisted var age: Int
    @Persisted(originProperty: "pets") var owners: LinkingObjects<CodablePerson>
}

final class CodablePlace: EmbeddedObject, Codable {
    @Persisted var city: String?
}

final class CodableNote: Object, Codable {
    @Persisted var text: String
    @Persisted var person: CodablePerson?
}

enum CodableLevel: Int, PersistableEnum { case low, high }

final class CodableTests: DatabaseTestCase {
    func makePerson() -> CodablePerson {
        let person = CodablePerson(value: ["id": 7, "name": "Ann"])
        person.born = Date(timeIntervalSince1970: 1000)
        person.pet = CodablePet(value: ["name": "Rex", "age": 3])
        person.pets.append(CodablePet(value: ["name": "Max", "age": 1]))
        person.home = CodablePlace(value: ["city": "Lyon"])
        person.tags.insert("a")
        person.scores["math"] = 9
        person.extra = .map(["k": .list([.int(1), .string("x")])])
        person.level = .high
        person.balance = Decimal128(12)
        return person
    }

    func json(_ value: some Encodable) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: try JSONEncoder().encode(value)) as! [String: Any]
    }

    func testUnmanagedAndManagedObjectsEncodeTheSame() throws {
        let person = makePerson()
        let unmanaged = try json(person)
        XCTAssertEqual(unmanaged["name"] as? String, "Ann")
        XCTAssertEqual(unmanaged["pet"] as? String, "Rex", "a link to a class with a primary key is its key")
        XCTAssertEqual((unmanaged["home"] as? [String: Any])?["city"] as? String, "Lyon", "an embedded object is nested")
        XCTAssertEqual(unmanaged["pets"] as? [String], ["Max"])
        XCTAssertEqual(unmanaged["scores"] as? [String: Int], ["math": 9])
        XCTAssertNil(unmanaged["owners"])
        let db = try open([CodablePerson.self, CodablePet.self, CodablePlace.self, CodableNote.self])
        try db.write { try db.add(person) }
        let managed = try json(try XCTUnwrap(db.object(ofType: CodablePerson.self, forPrimaryKey: 7)))
        XCTAssertEqual(NSDictionary(dictionary: managed), NSDictionary(dictionary: unmanaged))
    }

    func testDecodeAndAddLinksToStoredObjectsByKey() throws {
        let db = try open([CodablePerson.self, CodablePet.self, CodablePlace.self, CodableNote.self])
        try db.write { try db.add(makePerson()) }
        let data = try JSONEncoder().encode(try XCTUnwrap(db.object(ofType: CodablePerson.self, forPrimaryKey: 7)))
        let decoded = try JSONDecoder().decode(CodablePerson.self, from: data)
        XCTAssertFalse(decoded.isManaged)
        XCTAssertEqual(decoded.name, "Ann")
        XCTAssertEqual(decoded.home?.city, "Lyon")
        XCTAssertEqual(decoded.extra, .map(["k": .list([.int(1), .string("x")])]))
        XCTAssertEqual(decoded.level, .high)
        XCTAssertEqual(decoded.balance, Decimal128(12))
        XCTAssertEqual(decoded.pet?.name, "Rex")
        // Upserting the decoded copy links to the stored Rex without resetting his age.
        try db.write { try db.add(decoded, update: .modified) }
        XCTAssertEqual(db.object(ofType: CodablePet.self, forPrimaryKey: "Rex")?.age, 3)
        XCTAssertEqual(db.objects(CodablePet.self).count, 2)
    }

    func testObjectsWithoutPrimaryKeyAreNested() throws {
        let note = CodableNote(value: ["text": "hi"])
        note.person = makePerson()
        let encoded = try json(note)
        XCTAssertEqual(encoded["person"] as? Int, 7)
        let decoded = try JSONDecoder().decode(CodableNote.self, from: try JSONEncoder().encode(note))
        XCTAssertEqual(decoded.text, "hi")
        XCTAssertEqual(decoded.person?.id, 7)
    }

    func testBadInputIsADecodingError() {
        XCTAssertThrowsError(try JSONDecoder().decode(CodablePerson.self, from: Data(#"{"id": "seven"}"#.utf8)))
        XCTAssertThrowsError(try JSONDecoder().decode(CodablePerson.self, from: Data(#"{"level": 9}"#.utf8)))
        XCTAssertThrowsError(try JSONDecoder().decode(CodablePerson.self, from: Data("[1]".utf8)))
    }
}
