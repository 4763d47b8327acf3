import Foundation
import StrataStorage
import XCTest

@testable import Strata

final class DogWithoutOptionalLink: Object {
    @Persisted var friend: Dog
    override class func className() -> String { "BadLink" }
}

final class Numbered: Object {
    @Persisted(primaryKey: true) var number: Int
    @Persisted var label: String
}

final class Tagged: Object {
    @Persisted(primaryKey: true) var tag: String
}

final class TwoKeys: Object {
    @Persisted(primaryKey: true) var a: Int
    @Persisted(primaryKey: true) var b: String
}

final class LinksToStranger: Object {
    @Persisted var stranger: Counter?
}

final class RenamedDog: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: Int
    override class func className() -> String { "Dog" }
}

final class SchemaErrorTests: DatabaseTestCase {
    func assertSchemaError(_ types: [ObjectBase.Type], code: StrataError.Code, mentions: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try open(types), file: file, line: line) { error in
            let error = error as! StrataError
            XCTAssertEqual(error.code, code, file: file, line: line)
            XCTAssertTrue(error.message.contains(mentions), error.message, file: file, line: line)
        }
    }

    func testNonOptionalLinkIsASchemaError() {
        assertSchemaError([DogWithoutOptionalLink.self, Dog.self], code: .invalidSchema, mentions: "BadLink.friend")
    }

    func testTwoPrimaryKeysAreASchemaError() {
        assertSchemaError([TwoKeys.self], code: .invalidSchema, mentions: "TwoKeys")
    }

    func testLinkToUnregisteredTypeIsASchemaError() {
        assertSchemaError([LinksToStranger.self], code: .invalidSchema, mentions: "LinksToStranger.stranger")
    }

    func testChangedPropertyTypeIsASchemaMismatch() throws {
        _ = try open([Dog.self])
        assertSchemaError([RenamedDog.self], code: .schemaMismatch, mentions: "Dog.name")
    }
}
