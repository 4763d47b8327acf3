import Foundation
import XCTest

@testable import Strata

final class TeamWithLetList: Object {
    @Persisted var name: String
    let players = List<Dog>()
}

final class DogWithVarSet: Object {
    @Persisted var name: String
    var citiesVisited = MutableSet<String>()
}

final class DogWithPlainMap: Object {
    var parks = Map<String, String>()
}

final class CoachWithLetBacklink: Object {
    @Persisted var name: String
    let owner = LinkingObjects(fromType: TeamWithLetList.self, property: "coach")
}

final class TeamWithIgnoredValue: Object {
    @Persisted var name: String
    var scratch = 0
}

/// A Realm-style model Strata cannot store as written — a collection or
/// `LinkingObjects` declared without `@Persisted` (Realm's older `let dogs = List<Dog>()`) — is
/// an `.invalidSchema` error at open naming the class and property, not a property silently left
/// unstored. A plain value without `@Persisted` stays an ignored property, as in Realm.
final class UnpersistedPropertyTests: DatabaseTestCase {
    private func assertInvalidSchema(_ type: ObjectBase.Type, mentions words: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try open([type, Dog.self, Person.self, TeamWithLetList.self]), file: file, line: line) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, .invalidSchema, file: file, line: line)
            for word in words { XCTAssertTrue(error.message.contains(word), error.message, file: file, line: line) }
        }
    }

    func testALetListIsASchemaError() {
        assertInvalidSchema(TeamWithLetList.self, mentions: ["TeamWithLetList.players", "List<", "@Persisted"])
    }

    func testAVarMutableSetIsASchemaError() {
        assertInvalidSchema(DogWithVarSet.self, mentions: ["DogWithVarSet.citiesVisited", "MutableSet<"])
    }

    func testAMapWithoutPersistedIsASchemaError() {
        assertInvalidSchema(DogWithPlainMap.self, mentions: ["DogWithPlainMap.parks", "Map<"])
    }

    func testLinkingObjectsWithoutPersistedIsASchemaError() {
        assertInvalidSchema(CoachWithLetBacklink.self, mentions: ["CoachWithLetBacklink.owner", "LinkingObjects<"])
    }

    func testInitWithValueOfSuchAClassRecordsTheSchemaError() throws {
        let db = try open([Dog.self, Person.self, Counter.self])
        let team = TeamWithLetList(value: ["name": "A"])
        XCTAssertEqual(team.valueError?.code, .invalidSchema)
        XCTAssertThrowsError(try db.write { try db.add(team) }) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidSchema)
        }
    }

    func testAPlainValueWithoutPersistedIsIgnored() throws {
        let db = try open([TeamWithIgnoredValue.self])
        let team = TeamWithIgnoredValue()
        team.scratch = 5
        try db.write { try db.add(team) }
        XCTAssertEqual(db.schemas.schema(for: TeamWithIgnoredValue.self)?.properties.map(\.name), ["name"])
    }
}
