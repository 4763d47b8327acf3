import XCTest
@_spi(Testing) @testable import StrataStorage

/// KeyTree.Builder (Index/KeyTree+Builder.swift): a tree built bottom up from ascending entries
/// holds exactly them and keeps every invariant, at every size around the node capacities.
final class KeyTreeBuilderTests: XCTestCase {
    func build(_ entries: [(StorageKey, RecordLocation)], leafCapacity: Int, branchCapacity: Int) -> KeyTree {
        var builder = KeyTree.Builder(leafCapacity: leafCapacity, branchCapacity: branchCapacity)
        for (key, value) in entries { builder.append(KeyTree.SortKey(key), value) }
        XCTAssertEqual(builder.count, entries.count)
        return builder.finish()
    }

    func testEverySizeAroundTheCapacitiesBuildsAValidTreeOfExactlyTheEntries() throws {
        var random = SplitMix64(seed: 0xB111_D000)
        let pool = KeyTreeTests.keyPool(size: 700, &random).sorted(by: KeyTreeTests.bytewisePrecedes)
        for (leafCapacity, branchCapacity) in [(2, 3), (3, 3), (4, 5), (7, 4), (64, 64)] {
            for size in Array(0...40) + [63, 64, 65, 127, 128, 129, 300, 700] {
                let entries = pool.prefix(size).enumerated().map { ($1, KeyTreeTests.location($0)) }
                let tree = build(Array(entries), leafCapacity: leafCapacity, branchCapacity: branchCapacity)
                let context = "capacities \(leafCapacity)/\(branchCapacity), \(size) entries"
                XCTAssertNoThrow(try tree.checkInvariants(), context)
                XCTAssertEqual(tree.count, size, context)
                XCTAssertEqual(tree.map(\.key), entries.map(\.0), context)
                XCTAssertEqual(tree.map(\.value), entries.map(\.1), context)
                for (key, value) in entries.shuffled(using: &random).prefix(20) {
                    XCTAssertEqual(tree[key], value, context)
                }
            }
        }
    }

    func testABuiltTreeChangesLikeAnyOther() throws {
        var random = SplitMix64(seed: 0xB111_D001)
        let keys = KeyTreeTests.keyPool(size: 2_000, &random)
        let sorted = keys.sorted(by: KeyTreeTests.bytewisePrecedes)
        var tree = build(sorted.enumerated().map { ($1, KeyTreeTests.location($0)) }, leafCapacity: 4, branchCapacity: 4)
        let snapshot = tree
        var model = Dictionary(uniqueKeysWithValues: sorted.enumerated().map { ($1, KeyTreeTests.location($0)) })
        for (i, key) in keys.enumerated() {
            if i % 3 == 0 {
                XCTAssertEqual(tree.removeValue(forKey: key), model.removeValue(forKey: key))
            } else {
                XCTAssertEqual(tree.updateValue(KeyTreeTests.location(i + 5_000), forKey: key), model[key])
                model[key] = KeyTreeTests.location(i + 5_000)
            }
        }
        XCTAssertNoThrow(try tree.checkInvariants())
        XCTAssertEqual(tree.map(\.key), model.keys.sorted(by: KeyTreeTests.bytewisePrecedes))
        XCTAssertEqual(snapshot.count, sorted.count, "a copy taken before the changes keeps its entries")
        XCTAssertNoThrow(try snapshot.checkInvariants())
    }

    func testABuilderGoesOnFromATreeAndLeavesTheTreesSharingItUntouched() throws {
        var random = SplitMix64(seed: 0xB111_D003)
        let keys = KeyTreeTests.keyPool(size: 900, &random).sorted(by: KeyTreeTests.bytewisePrecedes)
        for (leafCapacity, branchCapacity) in [(2, 3), (4, 4), (64, 64)] {
            for split in [0, 1, 5, 64, 65, 300, 899] {
                let entries = keys.enumerated().map { ($1, KeyTreeTests.location($0)) }
                var tree = build(Array(entries[..<split]), leafCapacity: leafCapacity, branchCapacity: branchCapacity)
                let shared = tree
                var builder = KeyTree.Builder(continuing: &tree)
                XCTAssertTrue(tree.isEmpty)
                for (key, value) in entries[split...] { builder.append(KeyTree.SortKey(key), value) }
                let whole = builder.finish()
                let context = "capacities \(leafCapacity)/\(branchCapacity), split at \(split)"
                XCTAssertNoThrow(try whole.checkInvariants(), context)
                XCTAssertEqual(whole.map(\.key), keys, context)
                XCTAssertEqual(whole.map(\.value), entries.map(\.1), context)
                XCTAssertNoThrow(try shared.checkInvariants(), context)
                XCTAssertEqual(shared.map(\.key), Array(keys[..<split]), "a tree sharing the nodes keeps its entries, \(context)")
            }
        }
    }

    func testSortKeyFromBytesAndItsComparisonMatchTheStorageKeys() {
        var random = SplitMix64(seed: 0xB111_D002)
        let keys = KeyTreeTests.keyPool(size: 400, &random)
        for key in keys {
            let fromBytes = key.bytes.withUnsafeBytes { KeyTree.SortKey(bytes: $0) }
            XCTAssertEqual(fromBytes.storageKey, key)
            let padded = key.bytes + Array(repeating: 0xEE, count: 16)
            let overread = padded.withUnsafeBytes {
                KeyTree.SortKey(bytes: UnsafeRawBufferPointer(rebasing: $0[..<key.count]), overreadable: true)
            }
            XCTAssertEqual(overread.storageKey, key, "bytes past the key are not part of it")
        }
        for _ in 0..<4_000 {
            let left = keys.randomElement(using: &random)!, right = keys.randomElement(using: &random)!
            let order = KeyTree.SortKey(left).compare(KeyTree.SortKey(right))
            XCTAssertEqual(order < 0, KeyTreeTests.bytewisePrecedes(left, right), "\(left) vs \(right)")
            XCTAssertEqual(order == 0, left == right, "\(left) vs \(right)")
        }
    }
}
