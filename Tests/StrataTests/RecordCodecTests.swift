import Foundation
import XCTest
@testable import Strata
import StrataStorage

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
        deep += [UInt8](repeating: 13, count: RecordCodec.maxDepth + 1).flatMap { [$0, 1] }
        for bytes in [wrongVersion, trailing, deep] {
            XCTAssertThrowsError(try bytes.withUnsafeBytes { try RecordCodec.decodeFields($0, schema: schema) }) {
                XCTAssertEqual(($0 as? StrataError)?.code, .corruption)
            }
        }
    }
}
