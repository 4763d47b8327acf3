import Foundation
import XCTest

@testable import Strata
@_spi(Testing) import StrataStorage

final class ObjectIdTests: XCTestCase {
    private func counter(_ id: ObjectId) -> UInt32 {
        id.bytes[9...].reduce(0) { $0 << 8 | UInt32($1) }
    }

    func testGenerationIsUnique() {
        var seen = Set<ObjectId>()
        seen.reserveCapacity(100_000)
        for _ in 0..<100_000 { seen.insert(ObjectId.generate()) }
        XCTAssertEqual(seen.count, 100_000)
    }

    func testConcurrentGenerationIsUnique() {
        final class Collector: @unchecked Sendable {
            let lock = NSLock()
            var ids: [ObjectId] = []
            func add(_ batch: [ObjectId]) { lock.lock(); ids += batch; lock.unlock() }
        }
        let collector = Collector()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            collector.add((0..<10_000).map { _ in ObjectId.generate() })
        }
        XCTAssertEqual(collector.ids.count, 80_000)
        XCTAssertEqual(Set(collector.ids).count, 80_000)
    }

    func testCounterIncrementsAndMiddleBytesAreStable() {
        let ids = (0..<1_000).map { _ in ObjectId.generate() }
        for (previous, next) in zip(ids, ids.dropFirst()) {
            XCTAssertEqual((counter(next) &- counter(previous)) & 0xFF_FFFF, 1)
            XCTAssertEqual(previous.bytes[4..<9], next.bytes[4..<9], "the process-random bytes are fixed")
        }
    }

    func testTimestampIsNow() {
        let before = Date()
        let id = ObjectId.generate()
        XCTAssertLessThanOrEqual(abs(id.timestamp.timeIntervalSince(before)), 2)
        XCTAssertEqual(id.timestamp.timeIntervalSince1970, id.timestamp.timeIntervalSince1970.rounded(.down))
    }

    func testGeneratedIdsIncreaseWithinASecond() {
        let first = ObjectId.generate(), second = ObjectId.generate()
        if first.timestamp == second.timestamp && counter(second) > counter(first) {
            XCTAssertLessThan(first, second)
        }
    }

    func testStringRoundTrip() throws {
        let id = ObjectId.generate()
        XCTAssertEqual(id.stringValue.count, 24)
        XCTAssertEqual(try ObjectId(string: id.stringValue), id)
        XCTAssertEqual(ObjectId(id.description), id)
        XCTAssertEqual(id.description, id.stringValue)

        let known = try ObjectId(string: "507f1f77bcf86cd799439011")
        XCTAssertEqual(known.stringValue, "507f1f77bcf86cd799439011")
        XCTAssertEqual(known.bytes, [0x50, 0x7F, 0x1F, 0x77, 0xBC, 0xF8, 0x6C, 0xD7, 0x99, 0x43, 0x90, 0x11])
        XCTAssertEqual(known.timestamp, Date(timeIntervalSince1970: 0x507F_1F77))
        XCTAssertEqual(try ObjectId(string: "507F1F77BCF86CD799439011"), known, "case-insensitive")
        XCTAssertEqual(try ObjectId(string: "507F1f77bcF86cd799439011").stringValue, "507f1f77bcf86cd799439011")
        XCTAssertEqual(ObjectId.zero.stringValue, "000000000000000000000000")
        XCTAssertEqual(try ObjectId(string: "ffffffffffffffffffffffff").bytes, [UInt8](repeating: 0xFF, count: 12))
    }

    /// Seed 004: `@Persisted var _id: ObjectId` starts at a new unique id, `@Persisted var _id =
    /// ObjectId()` at the all-zero one, as `@objc dynamic var _id = ObjectId()` did.
    func testObjectIdInitIsZeroAndAnUndeclaredDefaultIsUnique() {
        final class Generated: Object { @Persisted var _id: ObjectId }
        final class Zero: Object { @Persisted var _id = ObjectId() }
        XCTAssertEqual(ObjectId(), .zero)
        XCTAssertEqual(Zero()._id, .zero)
        XCTAssertNotEqual(Generated()._id, .zero)
        XCTAssertNotEqual(Generated()._id, Generated()._id)
        XCTAssertNotEqual(ObjectId.generate(), ObjectId.generate())
    }

    func testInvalidStringsThrow() {
        let invalid = [
            "", "507f1f77bcf86cd79943901", "507f1f77bcf86cd7994390111", "507f1f77bcf86cd79943901g",
            "z07f1f77bcf86cd799439011", " 507f1f77bcf86cd79943901", "507f1f77bcf86cd79943901 ",
            "507f1f77-cf86cd799439011", "0x507f1f77bcf86cd7994390", "５07f1f77bcf86cd79943901",
            "507f1f77bcf86cd7994390é",
        ]
        for string in invalid {
            XCTAssertThrowsError(try ObjectId(string: string), string.debugDescription) { error in
                XCTAssertEqual(error as? ObjectIdParseError, ObjectIdParseError(input: string))
            }
            XCTAssertNil(ObjectId(string), string.debugDescription)
        }
        XCTAssertTrue("\(ObjectIdParseError(input: "xyz"))".contains("xyz"))
    }

    func testBytesRoundTrip() {
        let bytes: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
        let id = ObjectId(bytes: bytes)
        XCTAssertEqual(id.bytes, bytes)
        XCTAssertEqual(id.stringValue, "0102030405060708090a0b0c")
        XCTAssertEqual(ObjectId(validatingBytes: bytes), id)
        XCTAssertNil(ObjectId(validatingBytes: Array(bytes.dropLast())))
        XCTAssertNil(ObjectId(validatingBytes: bytes + [13]))
    }

    func testOrderingIsByteWise() throws {
        let sorted = try [
            "000000000000000000000000", "000000000000000000000001", "0000000000000000000000ff",
            "000000000000000100000000", "00000000ffffffffffffffff", "7fffffffffffffffffffffff",
            "800000000000000000000000", "ff0000000000000000000000", "ffffffffffffffffffffffff",
        ].map { try ObjectId(string: $0) }
        for (index, id) in sorted.enumerated() {
            for (otherIndex, other) in sorted.enumerated() {
                XCTAssertEqual(id < other, index < otherIndex)
                XCTAssertEqual(id == other, index == otherIndex)
                XCTAssertEqual(id < other, id.bytes.lexicographicallyPrecedes(other.bytes))
            }
        }
        var random = SplitMix64(seed: 0x0B1D_5047)
        XCTAssertEqual(sorted.shuffled(using: &random).sorted(), sorted, "shuffled with seed 0x0B1D_5047")
    }

    func testTimestampMachineProcessInitializer() {
        let date = Date(timeIntervalSince1970: 1_600_000_000.75)
        let id = ObjectId(timestamp: date, machineId: 0x0ABC_DEF1, processId: 0x1_2345)
        XCTAssertEqual(id.timestamp, Date(timeIntervalSince1970: 1_600_000_000))
        XCTAssertEqual(Array(id.bytes[0..<9]), [0x5F, 0x5E, 0x10, 0x00, 0xBC, 0xDE, 0xF1, 0x23, 0x45])
        let again = ObjectId(timestamp: date, machineId: 0x0ABC_DEF1, processId: 0x1_2345)
        XCTAssertNotEqual(id, again, "the counter still differs")
        XCTAssertEqual(Array(again.bytes[0..<9]), Array(id.bytes[0..<9]))
    }

    func testCodableRoundTrip() throws {
        struct Wrapper: Codable, Equatable {
            var id: ObjectId
            var ids: [ObjectId]
        }
        let value = Wrapper(id: ObjectId.generate(), ids: [ObjectId.generate(), .zero])
        let data = try JSONEncoder().encode(value)
        XCTAssertEqual(try JSONDecoder().decode(Wrapper.self, from: data), value)

        let single = try JSONEncoder().encode([try ObjectId(string: "507f1f77bcf86cd799439011")])
        XCTAssertEqual(String(decoding: single, as: UTF8.self), #"["507f1f77bcf86cd799439011"]"#)
        XCTAssertThrowsError(try JSONDecoder().decode([ObjectId].self, from: Data(#"["507f"]"#.utf8)))
        XCTAssertThrowsError(try JSONDecoder().decode([ObjectId].self, from: Data("[12]".utf8)))
    }

    func testHashableAndSendable() {
        let id = ObjectId.generate()
        let copy = ObjectId(bytes: id.bytes)
        XCTAssertEqual(id, copy)
        XCTAssertEqual(id.hashValue, copy.hashValue)
        let sendable: any Sendable = id
        XCTAssertEqual(sendable as? ObjectId, id)
        XCTAssertEqual(MemoryLayout<ObjectId>.size, 12)
    }
}
