import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@_spi(Tooling) @_spi(Testing) @testable import Strata

/// `strata export`'s documents (StoredSchema.forEachDocument): canonical Extended JSON of every
/// stored type, and export → import → export giving the same bytes.
final class ExtendedJSONTests: DatabaseTestCase {
    /// Every document of every class that is not embedded, one line each, by class.
    static func export(_ snapshot: Snapshot) throws -> [String: [String]] {
        let schema = try StoredSchema.load(from: snapshot)
        var files: [String: [String]] = [:]
        for storedClass in schema.classes where !storedClass.isEmbedded {
            var lines: [String] = []
            try schema.forEachDocument(of: storedClass, in: snapshot) { lines.append($0.rendered()); return true }
            files[storedClass.name] = lines
        }
        return files
    }

    func testEveryScalarTypeIsCanonicalExtendedJSON() throws {
        let db = try open([Dog.self, Person.self])
        let dogID = try ObjectId(string: "65a1b2c3d4e5f60718293a4b")
        try db.write {
            let dog = Dog()
            dog._id = dogID
            dog.name = "Rex"
            let person = Person()
            person._id = try ObjectId(string: "000000000000000000000001")
            person.name = "Ann \"A\"\n"
            person.birthdate = Date(timeIntervalSince1970: 1_700_000_000.123)
            person.dog = dog
            person.height = 1.5
            person.photo = Data([0, 1, 2])
            person.balance = try Decimal128(string: "1.50")
            person.ref = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!
            person.small = -8
            person.medium = nil
            person.large = Int64.min
            person.ratio = 0.25
            person.active = true
            try db.add(person)
        }
        let people = try XCTUnwrap(Self.export(db.storeSnapshot)["Person"])
        XCTAssertEqual(people, [[
            #"{"_id":{"$oid":"000000000000000000000001"},"name":"Ann \"A\"\n","birthdate":{"$date":{"$numberLong":"1700000000123"}},"#,
            #""dog":{"$oid":"65a1b2c3d4e5f60718293a4b"},"height":{"$numberDouble":"1.5"},"#,
            #""photo":{"$binary":{"base64":"AAEC","subType":"00"}},"balance":{"$numberDecimal":"1.50"},"#,
            #""ref":{"$binary":{"base64":"ABEiM0RVZneImaq7zN3u/w==","subType":"04"}},"small":{"$numberInt":"-8"},"#,
            #""medium":null,"large":{"$numberLong":"-9223372036854775808"},"ratio":{"$numberDouble":"0.25"},"active":true}"#,
        ].joined()])
    }

    /// Owners with links, lists, sets and maps of links, embedded objects (one linking on),
    /// strings, ints, an AnyValue holding a link, and enums.
    private func addOwners(to db: Database) throws {
        try db.write {
            let rex = Pet(), tom = Pet()
            rex.name = "Rex"
            tom.name = "Tom"
            let ann = Owner()
            ann.id = 1
            ann.name = "Ann"
            ann.pet = rex
            ann.pets.append(objectsIn: [rex, tom])
            ann.favorites.insert(tom)
            ann.byName["best"] = rex
            ann.byName["none"] = .some(nil)
            ann.home = Place(value: ["city": "Oslo", "landlord": tom])
            ann.pastHomes.append(Place(value: ["street": "Main St"]))
            ann.tags.append(objectsIn: ["a", "b"])
            ann.scores["x"] = 3
            ann.extra = .object(tom)
            ann.size = .large
            let bob = Owner()
            bob.id = -2
            bob.extra = .list([.int(1), .string("s"), .map(["k": .double(2)])])
            try db.add([ann, bob])
        }
    }

    func testLinksCollectionsEmbeddedObjectsAndAnyValues() throws {
        let db = try open([Owner.self, Pet.self, Place.self])
        try addOwners(to: db)
        let owners = try XCTUnwrap(Self.export(db.storeSnapshot)["Owner"])
        XCTAssertEqual(owners.count, 2)
        XCTAssertEqual(owners.first, """
            {"_id":{"$numberLong":"-2"},"id":{"$numberLong":"-2"},"name":"","pet":null,"pets":[],"favorites":[],"byName":{},\
            "home":null,"pastHomes":[],"tags":[],"nicknames":[],"scores":{},\
            "extra":[{"$numberLong":"1"},"s",{"k":{"$numberDouble":"2.0"}}],"size":null,"level":{"$numberLong":"1"}}
            """)
        XCTAssertEqual(owners.last, """
            {"_id":{"$numberLong":"1"},"id":{"$numberLong":"1"},"name":"Ann","pet":"Rex","pets":["Rex","Tom"],"favorites":["Tom"],\
            "byName":{"best":"Rex","none":null},"home":{"street":null,"city":"Oslo","landlord":"Tom"},\
            "pastHomes":[{"street":"Main St","city":null,"landlord":null}],"tags":["a","b"],"nicknames":[],\
            "scores":{"x":{"$numberLong":"3"}},"extra":{"$ref":"Pet","$id":"Tom"},"size":"large","level":{"$numberLong":"1"}}
            """)
    }

    func testExportImportExportGivesTheSameDocumentsAndAWholeDatabase() throws {
        let db = try open([Owner.self, Pet.self, Place.self])
        try addOwners(to: db)
        let snapshot = db.storeSnapshot
        let exported = try Self.export(snapshot)
        let definition = try StoredSchema.load(from: snapshot).definition()

        let copy = directory.appendingPathComponent("imported").path
        let store = try Store(directory: copy)
        var importer = try ExtendedJSONImport(definition: JSONValue.parse(definition.rendered(), source: "schema"), into: store.snapshot())
        for storedClass in importer.schema.classes where !storedClass.isEmbedded {
            for line in exported[storedClass.name] ?? [] {
                try importer.add(JSONValue.parse(line, source: "line"), className: storedClass.name)
            }
        }
        _ = try store.commit(importer.batch())
        XCTAssertEqual(try Self.export(store.snapshot()), exported)
        let report = Database.checkIntegrity(of: store.snapshot())
        XCTAssertTrue(report.isClean, "\(report.problems)")
        XCTAssertEqual(report.backlinksChecked, Database.checkIntegrity(of: snapshot).backlinksChecked)
        try store.close()

        let reopened = try Database(configuration: .init(directory: URL(fileURLWithPath: copy), objectTypes: [Owner.self, Pet.self, Place.self]))
        let ann = try XCTUnwrap(reopened.object(ofType: Owner.self, forPrimaryKey: 1))
        XCTAssertEqual(ann.pets.map(\.name), ["Rex", "Tom"])
        XCTAssertEqual(ann.home?.landlord?.name, "Tom")
        XCTAssertEqual(reopened.object(ofType: Pet.self, forPrimaryKey: "Rex")?.owners.count, 1)
    }

    func testImportRefusesAnObjectThatIsStoredAndALinkToNothing() throws {
        let db = try open([Owner.self, Pet.self, Place.self])
        try addOwners(to: db)
        let snapshot = db.storeSnapshot
        let definition = try StoredSchema.load(from: snapshot).definition()
        var importer = try ExtendedJSONImport(definition: definition, into: snapshot)
        XCTAssertThrowsError(try importer.add(JSONValue.parse(#"{"name":"Rex"}"#, source: "line"), className: "Pet")) {
            XCTAssertEqual(($0 as? StrataError)?.code, .primaryKeyExists)
        }
        try importer.add(JSONValue.parse(#"{"id":{"$numberLong":"7"},"pet":"Nobody"}"#, source: "line"), className: "Owner")
        XCTAssertThrowsError(try importer.batch()) { XCTAssertEqual(($0 as? StrataError)?.code, .invalidValue) }
        XCTAssertThrowsError(try importer.add(JSONValue.parse(#"{"id":{"$numberLong":"8"},"age":3}"#, source: "line"), className: "Owner")) {
            XCTAssertTrue("\($0)".contains("Owner has no property age"), "\($0)")
        }
        XCTAssertThrowsError(try importer.add(JSONValue.parse(#"{"id":"eight"}"#, source: "line"), className: "Owner")) {
            XCTAssertEqual(($0 as? StrataError)?.code, .invalidValue)
        }
    }

    func testImportRefusesWhatNoWriteCouldStore() throws {
        let db = try open([Owner.self, Pet.self, Place.self])
        let snapshot = db.storeSnapshot
        var importer = try ExtendedJSONImport(definition: StoredSchema.load(from: snapshot).definition(), into: snapshot)
        let refused = [
            #"{"id":{"$numberLong":"1"},"scores":{"a.b":{"$numberLong":"1"}}}"#,
            #"{"id":{"$numberLong":"1"},"nicknames":["x","x"]}"#,
            #"{"id":{"$numberLong":"1"},"extra":"# + String(repeating: "[", count: 120) + String(repeating: "]", count: 120) + "}",
            #"{"id":{"$numberLong":"1"},"level":{"$numberInt":"x"}}"#,
        ]
        for document in refused {
            XCTAssertThrowsError(try importer.add(JSONValue.parse(document, source: "line"), className: "Owner"), document) {
                XCTAssertEqual(($0 as? StrataError)?.code, .invalidValue, document)
            }
        }
        XCTAssertEqual(importer.count, 0)
        let dangling = try JSONValue.parse(#"{"classes":[{"name":"A","isEmbedded":false,"properties":[{"name":"b","type":"object:B?"}]}]}"#, source: "schema")
        XCTAssertThrowsError(try ExtendedJSONImport(definition: dangling, into: snapshot)) {
            XCTAssertEqual(($0 as? StrataError)?.code, .invalidSchema)
        }
    }
}
