import Foundation
import XCTest
@testable import Strata
@_spi(Testing) import StrataStorage

/// Object records: round trips, single-field reads, and malformed bytes, which must be
/// `.corruption` and never a trap (a record can be damaged behind a valid checksum, e.g. by a
/// buggy writer).
final class RecordCodecTests: DatabaseTestCase {
    /// A stored `Owner` with a value in every kind of property, its schema and its record.
    private func storedOwner() throws -> (schema: ObjectSchema, fields: [FieldValue], record: [UInt8]) {
        let db = try Database(configuration: .init(directory: directory, objectTypes: [Owner.self, Pet.self, Place.self]))
        let owner = Owner(value: ["id": 7, "name": "Ann"])
        owner.tags.append(contentsOf: ["a", "b"])
        owner.nicknames.insert("A")
        owner.scores["math"] = 9
        owner.extra = .list([.int(1), .string("x"), .map(["k": .bool(true)])])
        owner.home = Place()
        owner.home?.street = "Rue"
        owner.pets.append(Pet(value: ["name": "Rex"]))
        owner.size = .large
        try db.write { try db.add(owner) }
        let schema = try XCTUnwrap(db.schemas.schema(for: Owner.self))
        let key = ObjectKey(classID: schema.classID, key: try XCTUnwrap(PrimaryKeyEncoding.key(for: .int(7), optional: false)))
        let fields = try XCTUnwrap(db.loadFields(key, schema: schema))
        let record = try XCTUnwrap(try db.snapshot.withValue(for: key.key, in: Keyspace(schema.classID)) { Array($0) })
        return (schema, fields, record)
    }

    func testRecordsRoundTripAndSingleFieldsMatch() throws {
        let (schema, fields, record) = try storedOwner()
        var encoded: [UInt8] = []
        RecordCodec.encode(fields, schema: schema, appendingTo: &encoded)
        XCTAssertEqual(encoded, record)
        let decoded = try record.withUnsafeBytes { try RecordCodec.decodeFields($0, schema: schema) }
        XCTAssertEqual(decoded, fields)
        for property in schema.properties where property.isStored {
            let field = try record.withUnsafeBytes { try RecordCodec.decodeField($0, propertyID: property.propertyID) }
            XCTAssertEqual(field, fields[property.index], property.name)
        }
        // Decoding only some properties leaves the others at their defaults.
        var wanted = [Bool](repeating: false, count: schema.properties.count)
        let name = try XCTUnwrap(schema["name"])
        wanted[name.index] = true
        let partial = try record.withUnsafeBytes { try RecordCodec.decodeFields($0, schema: schema, only: wanted) }
        for property in schema.properties {
            XCTAssertEqual(partial[property.index], property.index == name.index ? fields[property.index] : schema.defaultFields[property.index])
        }
    }

    /// A record written straight from an object's properties (the add path of a class with no
    /// links or indexes) has the bytes of the record encoded from its fields, for every scalar
    /// type, present or nil, and for the types written through their fields (enums, lists).
    func testRecordsWrittenFromPropertiesMatchRecordsEncodedFromFields() throws {
        let db = try Database(configuration: .init(directory: directory, objectTypes: [EveryScalar.self]))
        let schema = try XCTUnwrap(db.schemas.schema(for: EveryScalar.self))
        XCTAssertFalse(schema.hasLinksOrIndexes)
        let seed: UInt64 = 0x5EED_C0DE
        var random = SplitMix64(seed: seed)
        for round in 0..<200 {
            let object = EveryScalar.random(id: round, using: &random)
            let fromProperties = ByteBuffer()
            try RecordCodec.encode(propertiesOf: object, schema: schema, context: db, appendingTo: fromProperties)
            let fields = try schema.accessors.map { try $0.storedValue(of: object, context: db) }
            var fromFields: [UInt8] = []
            RecordCodec.encode(fields, schema: schema, appendingTo: &fromFields)
            let written = fromProperties.withBytes(in: 0..<fromProperties.count) { Array($0) }
            XCTAssertEqual(written, fromFields, "round \(round), seed \(seed)")
            // And it reads back as the object's values.
            let decoded = try written.withUnsafeBytes { try RecordCodec.decodeFields($0, schema: schema) }
            XCTAssertEqual(decoded, fields, "round \(round), seed \(seed)")
        }
    }

    func testEveryTruncationIsCorruption() throws {
        let (schema, _, record) = try storedOwner()
        for length in 0..<record.count {
            let cut = Array(record.prefix(length))
            XCTAssertThrowsError(try cut.withUnsafeBytes { try RecordCodec.decodeFields($0, schema: schema) }, "length \(length)") {
                XCTAssertEqual(($0 as? StrataError)?.code, .corruption)
            }
            // A single-field read stops at its field: it throws or answers, never traps.
            for property in schema.properties where property.isStored {
                do {
                    _ = try cut.withUnsafeBytes { try RecordCodec.decodeField($0, propertyID: property.propertyID) }
                } catch let error as StrataError {
                    XCTAssertEqual(error.code, .corruption)
                }
            }
        }
    }

    func testDamagedRecordsAreCorruptionOrDecode() throws {
        let (schema, _, record) = try storedOwner()
        var generator = SplitMix64(seed: 99)
        for _ in 0..<3_000 {
            var damaged = record
            for _ in 0..<(1 + Int(generator.next(upperBound: UInt64(3)))) {
                damaged[Int(generator.next(upperBound: UInt64(damaged.count)))] = UInt8(truncatingIfNeeded: generator.next())
            }
            for decode in [
                { (bytes: UnsafeRawBufferPointer) throws in _ = try RecordCodec.decodeFields(bytes, schema: schema) },
                { (bytes: UnsafeRawBufferPointer) throws in _ = try RecordCodec.decodeField(bytes, propertyID: 2) },
            ] {
                do {
                    try damaged.withUnsafeBytes(decode)
                } catch let error as StrataError {
                    XCTAssertEqual(error.code, .corruption)
                }
            }
        }
        // A wrong version, trailing bytes and nesting past the limit.
        var wrongVersion = record
        wrongVersion[0] = 2
        var trailing = record
        trailing.append(0)
        var deep: [UInt8] = [RecordCodec.version, 1, 1]
        deep += [UInt8](repeating: 13, count: RecordCodec.maxNesting + 2).flatMap { [$0, 1] }
        for bytes in [wrongVersion, trailing, deep] {
            XCTAssertThrowsError(try bytes.withUnsafeBytes { try RecordCodec.decodeFields($0, schema: schema) }) {
                XCTAssertEqual(($0 as? StrataError)?.code, .corruption)
            }
        }
    }
}

/// A class with every scalar type, each also optional, and two types written through their
/// fields (an enum, a list): no links, no index.
final class EveryScalar: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var flag: Bool
    @Persisted var small: Int8
    @Persisted var medium: Int16
    @Persisted var large: Int32
    @Persisted var huge: Int64
    @Persisted var ratio: Float
    @Persisted var height: Double
    @Persisted var name: String
    @Persisted var photo: Data
    @Persisted var born: Date
    @Persisted var ref: UUID
    @Persisted var oid: ObjectId
    @Persisted var balance: Decimal128
    @Persisted var maybeFlag: Bool?
    @Persisted var maybeSmall: Int8?
    @Persisted var maybeInt: Int?
    @Persisted var maybeRatio: Float?
    @Persisted var maybeHeight: Double?
    @Persisted var maybeName: String?
    @Persisted var maybePhoto: Data?
    @Persisted var maybeBorn: Date?
    @Persisted var maybeRef: UUID?
    @Persisted var maybeOid: ObjectId?
    @Persisted var maybeBalance: Decimal128?
    @Persisted var level: Level?
    @Persisted var numbers: List<Int>

    static func random(id: Int, using random: inout some RandomNumberGenerator) -> EveryScalar {
        func maybe<T>(_ value: T) -> T? { Bool.random(using: &random) ? value : nil }
        let text = String((0..<Int.random(in: 0...40, using: &random)).map { _ in "aé😀z".randomElement(using: &random)! })
        let bytes = Data((0..<Int.random(in: 0...300, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) })
        func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        func randomUUID() -> UUID { randomBytes(16).withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) } }
        let object = EveryScalar()
        object.id = id &* (Bool.random(using: &random) ? 1 : -1)
        object.flag = .random(using: &random)
        object.small = .random(in: .min ... .max, using: &random)
        object.medium = .random(in: .min ... .max, using: &random)
        object.large = .random(in: .min ... .max, using: &random)
        object.huge = .random(in: .min ... .max, using: &random)
        object.ratio = .random(in: -1e6...1e6, using: &random)
        object.height = .random(in: -1e300...1e300, using: &random)
        object.name = text
        object.photo = bytes
        object.born = Date(timeIntervalSinceReferenceDate: .random(in: -1e9...1e9, using: &random))
        object.ref = randomUUID()
        object.oid = ObjectId(bytes: randomBytes(12))
        object.balance = Decimal128(Int.random(in: .min ... .max, using: &random))
        object.maybeFlag = maybe(.random(using: &random))
        object.maybeSmall = maybe(.random(in: .min ... .max, using: &random))
        object.maybeInt = maybe(.random(in: .min ... .max, using: &random))
        object.maybeRatio = maybe(.random(in: -10...10, using: &random))
        object.maybeHeight = maybe(.random(in: -10...10, using: &random))
        object.maybeName = maybe(text + "!")
        object.maybePhoto = maybe(bytes)
        object.maybeBorn = maybe(Date(timeIntervalSinceReferenceDate: 12.5))
        object.maybeRef = maybe(randomUUID())
        object.maybeOid = maybe(ObjectId(bytes: randomBytes(12)))
        object.maybeBalance = maybe(Decimal128(-7))
        object.level = maybe(.high)
        object.numbers.append(objectsIn: (0..<Int.random(in: 0...5, using: &random)).map { $0 * 1000 })
        return object
    }
}
