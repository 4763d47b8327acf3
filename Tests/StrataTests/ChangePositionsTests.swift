import XCTest
@testable import Strata
@_spi(Testing) import StrataStorage

/// The write's key-to-position table against a `Dictionary` model: random inserts, lookups and
/// removals (which shift runs back) of short and long keys in several classes, with growth and
/// emptying.
final class ChangePositionsTests: XCTestCase {
    private func randomKey(using random: inout SplitMix64) -> ObjectKey {
        let classID = UInt32.random(in: 1...3, using: &random)
        switch Int.random(in: 0..<4, using: &random) {
        case 0:
            // Long keys (heap): a handful of distinct ones.
            return ObjectKey(classID: classID, key: StorageKey("a long key that is not held inline #\(Int.random(in: 0..<20, using: &random))"))
        case 1:
            // Short byte strings of every length up to 15, some of them prefixes of others.
            let length = Int.random(in: 0...15, using: &random)
            return ObjectKey(classID: classID, key: StorageKey((0..<length).map { _ in UInt8.random(in: 0...2, using: &random) }))
        default:
            // Integers from a small range, so keys repeat and runs collide.
            return ObjectKey(classID: classID, key: StorageKey(UInt64.random(in: 0..<400, using: &random)))
        }
    }

    func testAgreesWithADictionary() {
        var random = SplitMix64(seed: 0x5EED)
        var table = ChangePositions()
        var model: [ObjectKey: Int] = [:]
        for step in 0..<60_000 {
            let key = randomKey(using: &random)
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<5:
                let position = Int.random(in: 0..<1_000_000, using: &random)
                let stored = table.position(of: key, insertingIfAbsent: position)
                XCTAssertEqual(stored, model[key, default: position], "step \(step)")
                model[key] = stored
            case 5..<8:
                table.remove(key)
                model[key] = nil
            case 8:
                XCTAssertEqual(table.position(of: key), model[key], "step \(step)")
            default:
                if step % 5_000 == 0 {
                    table.removeAll()
                    model.removeAll()
                }
            }
            XCTAssertEqual(table.count, model.count, "step \(step)")
            if step % 1_000 == 0 {
                // Every key of the model is found, whatever was removed around it.
                for (key, position) in model { XCTAssertEqual(table.position(of: key), position, "step \(step)") }
            }
        }
        for (key, position) in model { XCTAssertEqual(table.position(of: key), position) }
    }

    func testSeededHashesOfEqualKeysAreEqual() {
        let keys = [StorageKey(UInt64(7)), StorageKey([1, 2, 3]), StorageKey(String(repeating: "k", count: 40))]
        for key in keys {
            let copy = StorageKey(key.bytes)
            XCTAssertEqual(key.hash(seed: 42), copy.hash(seed: 42))
        }
        // Different seeds scatter the same keys differently.
        let first = (0..<64).map { StorageKey(UInt64($0)).hash(seed: 1) & 63 }
        let second = (0..<64).map { StorageKey(UInt64($0)).hash(seed: 2) & 63 }
        XCTAssertNotEqual(first, second)
        // Consecutive integers spread over the low bits (the table's home slots).
        XCTAssertGreaterThan(Set(first).count, 32)
    }

    /// `hash(seed:)` moved from StrataStorage (where it multiplied a key's inline words) into
    /// this module (where it rebuilds them from the bytes) unchanged: these are the old
    /// function's values, for a key of each inline length (bytes 1…n) and an integer key.
    func testSeededHashValuesAreUnchangedByTheMove() throws {
        #if _endian(little)
        let expected: [UInt64] = [
            0xba32_4c22_045b_d055, 0xa8a9_7f4b_a547_81d8, 0xc645_9827_64f5_3fd4, 0x5da4_a492_52c4_cd55,
            0x65fd_c833_e793_28ae, 0xaafa_8ed5_c0e6_1296, 0x7303_bb55_aa7a_58df, 0x4c74_86e3_6a3a_ca87,
            0x8c61_9120_08a1_2d1a, 0xa486_0969_4d93_469e, 0x402b_bafa_3f7d_365f, 0xdb94_3b46_90c7_a38f,
            0x6327_8407_b1ba_acd6, 0x0b49_2546_e5f4_c249, 0x8277_df44_2334_4a10, 0x86d4_f07a_4bae_9dbe,
        ]
        for (length, value) in expected.enumerated() {
            let key = StorageKey((0..<length).map { UInt8($0 + 1) })
            XCTAssertEqual(key.hash(seed: 42), value, "length \(length)")
        }
        XCTAssertEqual(StorageKey(UInt64(7)).hash(seed: 42), 0x6979_fb87_e533_1e2f)
        #else
        throw XCTSkip("the values were recorded on a little-endian machine")
        #endif
    }
}
