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
}
