import Dispatch
import XCTest
@_spi(Testing) @testable import StrataStorage

/// KeyTree against a dictionary model, its persistence, its shapes and its structural invariants;
/// and StorageKey's fast comparison against the byte-wise order.
final class KeyTreeTests: XCTestCase {
    // MARK: Helpers

    /// The reference order: byte-wise lexicographic on the keys' bytes.
    static func bytewisePrecedes(_ lhs: StorageKey, _ rhs: StorageKey) -> Bool {
        lhs.bytes.lexicographicallyPrecedes(rhs.bytes)
    }

    /// A location whose fields all derive from `number`, so distinct numbers give distinct
    /// locations.
    static func location(_ number: Int) -> RecordLocation {
        RecordLocation(segment: UInt32(truncatingIfNeeded: number), offset: number &* 7, length: number &+ 1)
    }

    /// Prefixes shared by many keys, so long keys often tie on their first 15 bytes (the tree's
    /// sort words) and are told apart by their later bytes, and short keys sort among them.
    static let sharedPrefixes: [[UInt8]] = [
        Array("event/000000000".utf8), Array("event/000000000/".utf8), Array(repeating: 0, count: 15),
        Array(repeating: 0xff, count: 17), Array("user/00".utf8),
    ]

    /// A random key from a small alphabet with zero bytes, in lengths around the inline limit
    /// (0, 7, 8, 9, 14, 15, 16, 17 and more), so keys are often prefixes of each other, equal, or
    /// differ only in trailing zero bytes; or a shared prefix with a short random tail.
    static func randomKey(_ random: inout SplitMix64) -> StorageKey {
        let lengths = [0, 1, 2, 3, 7, 8, 9, 14, 15, 15, 16, 16, 17, 23, 24, 31, 40]
        let alphabet: [UInt8] = [0, 0, 1, 2, 0x7f, 0x80, 0xff]
        switch random.next() % 5 {
        case 0:
            return StorageKey(UInt64.random(in: 0..<4096, using: &random))
        case 1:
            // A fully random byte string.
            let length = lengths.randomElement(using: &random)!
            return StorageKey((0..<length).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 2:
            let prefix = sharedPrefixes.randomElement(using: &random)!
            let tail = (0..<Int.random(in: 0...10, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            return StorageKey(prefix + tail)
        default:
            let length = lengths.randomElement(using: &random)!
            return StorageKey((0..<length).map { _ in alphabet.randomElement(using: &random)! })
        }
    }

    /// A pool of distinct keys from ``randomKey(_:)`` plus every prefix of some of them, in an
    /// order that depends only on the generator (not on the process's hash seed).
    static func keyPool(size: Int, _ random: inout SplitMix64) -> [StorageKey] {
        var pool: [StorageKey] = []
        var seen = Set<StorageKey>()
        func add(_ key: StorageKey) {
            if seen.insert(key).inserted { pool.append(key) }
        }
        while pool.count < size {
            let key = randomKey(&random)
            add(key)
            if random.next() % 8 == 0 {
                let bytes = key.bytes
                for length in 0..<bytes.count { add(StorageKey(bytes[0..<length])) }
            }
        }
        return pool
    }

    /// Fails unless `tree` holds exactly `model`, in ascending key order, with valid structure.
    func assertTree(
        _ tree: KeyTree, equals model: [StorageKey: RecordLocation], _ context: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertNoThrow(try tree.checkInvariants(), context, file: file, line: line)
        XCTAssertEqual(tree.count, model.count, context, file: file, line: line)
        XCTAssertEqual(tree.isEmpty, model.isEmpty, context, file: file, line: line)
        let expected = model.sorted { Self.bytewisePrecedes($0.key, $1.key) }
        let actual = Array(tree)
        XCTAssertEqual(actual.map(\.key), expected.map(\.key), context, file: file, line: line)
        XCTAssertEqual(actual.map(\.value), expected.map(\.value), context, file: file, line: line)
        XCTAssertEqual(Array(tree.keys), expected.map(\.key), context, file: file, line: line)
        for (key, value) in model where tree[key] != value {
            XCTFail("\(context): tree[\(key)] is \(String(describing: tree[key])), expected \(value)", file: file, line: line)
            return
        }
    }

    // MARK: StorageKey order

    func testFastComparisonMatchesBytewiseOrder() {
        var random = seededGenerator(1)
        let keys = Self.keyPool(size: 600, &random)
        for lhs in keys {
            for rhs in keys {
                let expected = Self.bytewisePrecedes(lhs, rhs)
                XCTAssertEqual(lhs < rhs, expected, "\(lhs) < \(rhs)")
                let order = StorageKey.compare(lhs, rhs)
                let expectedOrder = expected ? -1 : (lhs.bytes == rhs.bytes ? 0 : 1)
                XCTAssertEqual(order.signum(), expectedOrder, "compare(\(lhs), \(rhs))")
                XCTAssertEqual(StorageKey.compareBytes(lhs, rhs).signum(), expectedOrder, "compareBytes(\(lhs), \(rhs))")
            }
        }
    }

    func testFastComparisonCornerCases() {
        // Each key sorts strictly before the next.
        let ascending: [[UInt8]] = [
            [], [0], [0, 0], [0, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0],
            Array(repeating: 0, count: 15), Array(repeating: 0, count: 16), Array(repeating: 0, count: 17),
            [0, 1], [1], [1, 0], [1, 0, 0xff], Array(repeating: 1, count: 14), Array(repeating: 1, count: 15),
            Array(repeating: 1, count: 15) + [0], Array(repeating: 1, count: 16), [1, 2], [0x7f], [0x80],
            Array(repeating: 0xff, count: 8), Array(repeating: 0xff, count: 15), Array(repeating: 0xff, count: 16),
        ]
        for (i, lhs) in ascending.enumerated() {
            for (j, rhs) in ascending.enumerated() {
                XCTAssertEqual(StorageKey(lhs) < StorageKey(rhs), i < j, "\(lhs) < \(rhs)")
                XCTAssertEqual(StorageKey.compare(StorageKey(lhs), StorageKey(rhs)).signum(), (i - j).signum(), "\(lhs) vs \(rhs)")
            }
        }
        // Integer keys sort as the integers do.
        var random = seededGenerator(2)
        for _ in 0..<10_000 {
            let a = random.next() >> (random.next() % 64), b = random.next() >> (random.next() % 64)
            XCTAssertEqual(StorageKey(a) < StorageKey(b), a < b)
            XCTAssertEqual(StorageKey(a) == StorageKey(b), a == b)
        }
    }

    func testSortWordsOrderKeysAndTieOnlyForLongKeysSharing15Bytes() {
        var random = seededGenerator(3)
        let keys = Self.keyPool(size: 500, &random)
        for lhs in keys {
            let l = KeyTree.SortKey(lhs)
            XCTAssertEqual(l.storageKey, lhs)
            XCTAssertEqual(l.longBytes != nil, lhs.count > StorageKey.inlineCapacity)
            for rhs in keys {
                let r = KeyTree.SortKey(rhs)
                let wordsPrecede = l.high < r.high || (l.high == r.high && l.low < r.low)
                let wordsTie = l.high == r.high && l.low == r.low
                if wordsTie {
                    // Equal words: equal keys, or two long keys with the same first 15 bytes.
                    XCTAssertTrue(lhs == rhs || (lhs.count > 15 && rhs.count > 15 && lhs.bytes.prefix(15) == rhs.bytes.prefix(15)), "\(lhs) \(rhs)")
                } else {
                    XCTAssertEqual(wordsPrecede, Self.bytewisePrecedes(lhs, rhs), "\(lhs) vs \(rhs)")
                }
            }
        }
    }

    // MARK: Model-based

    func testRandomOperationsMatchDictionaryModel() {
        // Small nodes reach deep trees and every split and merge shape; the defaults check the
        // real configuration.
        for (leafCapacity, branchCapacity, seed) in [(2, 3, 10), (3, 4, 11), (4, 3, 12), (5, 6, 13), (64, 64, 14), (16, 8, 15), (3, 12, 16), (2, 16, 17)] {
            runRandomOperations(leafCapacity: leafCapacity, branchCapacity: branchCapacity, seed: UInt64(seed), operations: 25_000)
        }
    }

    func runRandomOperations(leafCapacity: Int, branchCapacity: Int, seed: UInt64, operations: Int) {
        var random = seededGenerator(seed)
        let pool = Self.keyPool(size: 3000, &random)
        var tree = KeyTree(leafCapacity: leafCapacity, branchCapacity: branchCapacity)
        var model: [StorageKey: RecordLocation] = [:]
        var copies: [(tree: KeyTree, model: [StorageKey: RecordLocation], step: Int)] = []
        // Phases bias towards inserting or removing, so the tree grows large and shrinks to
        // nothing more than once.
        var insertPercent = 70
        for step in 0..<operations {
            if step % 5000 == 0 { insertPercent = insertPercent == 70 ? 30 : 70 }
            let context = "capacities \(leafCapacity)/\(branchCapacity) seed \(seed) step \(step)"
            let key = pool.randomElement(using: &random)!
            if Int.random(in: 0..<100, using: &random) < insertPercent {
                let value = Self.location(step)
                // A fresh copy of the key: the tree's long keys own their own bytes, so a
                // reference-counting slip in the tree frees memory it still uses.
                let old = tree.updateValue(value, forKey: StorageKey(key.bytes))
                XCTAssertEqual(old, model.updateValue(value, forKey: key), context)
            } else {
                let old = tree.removeValue(forKey: key)
                XCTAssertEqual(old, model.removeValue(forKey: key), context)
            }
            XCTAssertEqual(tree.count, model.count, context)
            let probe = pool.randomElement(using: &random)!
            XCTAssertEqual(tree[probe], model[probe], context)
            if step % 211 == 0 {
                XCTAssertNoThrow(try tree.checkInvariants(), context)
            }
            if step % 2500 == 0 { assertTree(tree, equals: model, context) }
            if step % 97 == 0 {
                // The greatest key, which writes use to skip lookups of keys above it.
                XCTAssertEqual(tree.lastKey, model.keys.max(), context)
            }
            if random.next() % 1000 == 0 { copies.append((tree, model, step)) }
            if tree.isEmpty { XCTAssertNil(tree.root, context) }
        }
        assertTree(tree, equals: model, "capacities \(leafCapacity)/\(branchCapacity) seed \(seed) end")
        XCTAssertGreaterThan(copies.count, 5)
        for copy in copies {
            assertTree(copy.tree, equals: copy.model, "copy from step \(copy.step), seed \(seed)")
        }
    }

    func testNodesWithAndWithoutLongKeysMeet() {
        // Runs of short keys alternate with runs of long ones, so nodes that never held a long
        // key (and have no array for their bytes) split from, merge with and trade entries with
        // nodes that have one.
        var random = seededGenerator(18)
        let keys: [StorageKey] = (0..<40).flatMap { group -> [StorageKey] in
            (0..<30).map { index -> StorageKey in
                let head: [UInt8] = [UInt8(group), UInt8(index)]
                return StorageKey(group % 2 == 0 ? head : head + Array(repeating: 0xab, count: 18) + [UInt8(index)])
            }
        }
        for (leafCapacity, branchCapacity) in [(3, 3), (4, 5), (6, 12), (2, 8)] {
            var tree = KeyTree(leafCapacity: leafCapacity, branchCapacity: branchCapacity)
            var model: [StorageKey: RecordLocation] = [:]
            for round in 0..<6 {
                // Grow from a sorted or shuffled order, then remove most keys at random.
                let order = round % 2 == 0 ? keys : keys.shuffled(using: &random)
                for (index, key) in order.enumerated() {
                    tree.updateValue(Self.location(index), forKey: StorageKey(key.bytes))
                    model[key] = Self.location(index)
                }
                assertTree(tree, equals: model, "\(leafCapacity)/\(branchCapacity) round \(round) grown")
                for (index, key) in keys.shuffled(using: &random).prefix(keys.count * 9 / 10).enumerated() {
                    XCTAssertEqual(tree.removeValue(forKey: key), model.removeValue(forKey: key))
                    if index % 97 == 0 { XCTAssertNoThrow(try tree.checkInvariants()) }
                }
                assertTree(tree, equals: model, "\(leafCapacity)/\(branchCapacity) round \(round) shrunk")
            }
        }
    }

    // MARK: Persistence

    func testCopiesNeverChange() {
        var random = seededGenerator(20)
        let pool = Self.keyPool(size: 2000, &random)
        for (leafCapacity, branchCapacity) in [(3, 3), (64, 64)] {
            var tree = KeyTree(leafCapacity: leafCapacity, branchCapacity: branchCapacity)
            var model: [StorageKey: RecordLocation] = [:]
            var copies: [(tree: KeyTree, model: [StorageKey: RecordLocation])] = []
            for step in 0..<12_000 {
                let key = pool.randomElement(using: &random)!
                if random.next() % 3 == 0 {
                    tree.removeValue(forKey: key)
                    model[key] = nil
                } else {
                    tree.updateValue(Self.location(step), forKey: key)
                    model[key] = Self.location(step)
                }
                // Copies at random moments, some right after another.
                if random.next() % 300 == 0 || step % 4000 == 1 {
                    copies.append((tree, model))
                }
                // Mutating a copy must not change the tree either (the copy path-copies too).
                if random.next() % 2000 == 0, var copy = copies.randomElement(using: &random)?.tree {
                    for _ in 0..<50 { copy.updateValue(Self.location(-1), forKey: pool.randomElement(using: &random)!) }
                    for _ in 0..<50 { copy.removeValue(forKey: pool.randomElement(using: &random)!) }
                }
            }
            for (index, copy) in copies.enumerated() {
                assertTree(copy.tree, equals: copy.model, "copy \(index), capacities \(leafCapacity)/\(branchCapacity)")
            }
            assertTree(tree, equals: model, "final tree")
        }
    }

    func testAscendingBatchesWithSnapshotsBetween() {
        // The database's pattern: a batch of ascending keys, then a snapshot, the previous one
        // dropped. Every snapshot keeps exactly its prefix of the keys.
        var tree = KeyTree()
        var snapshots: [KeyTree] = []
        var next: UInt64 = 0
        for batch in 0..<30 {
            for _ in 0..<777 {
                tree.updateValue(Self.location(Int(next)), forKey: StorageKey(next))
                next += 1
            }
            if batch % 3 == 0 { snapshots.append(tree) }
        }
        XCTAssertNoThrow(try tree.checkInvariants())
        for (index, snapshot) in snapshots.enumerated() {
            let expectedCount = (index * 3 + 1) * 777
            XCTAssertNoThrow(try snapshot.checkInvariants())
            XCTAssertEqual(snapshot.count, expectedCount)
            var expectedKey: UInt64 = 0
            for (key, value) in snapshot {
                XCTAssertEqual(key, StorageKey(expectedKey))
                XCTAssertEqual(value, Self.location(Int(expectedKey)))
                expectedKey += 1
            }
            XCTAssertEqual(expectedKey, UInt64(expectedCount))
            XCTAssertNil(snapshot[StorageKey(UInt64(expectedCount))])
        }
    }

    func testMutationsOfAnUnsharedTreeHappenInPlace() {
        func leftmostLeaf(_ tree: KeyTree) -> ObjectIdentifier {
            var node = tree.root!
            while !node.isLeaf { node = node.children[0] }
            return ObjectIdentifier(node)
        }
        var tree = KeyTree(leafCapacity: 4, branchCapacity: 4)
        for i in 0..<100 { tree.updateValue(Self.location(i), forKey: StorageKey(UInt64(i))) }
        let root = ObjectIdentifier(tree.root!), leaf = leftmostLeaf(tree)
        XCTAssertEqual(tree.updateValue(Self.location(-1), forKey: StorageKey(UInt64(0))), Self.location(0))
        XCTAssertEqual(tree.removeValue(forKey: StorageKey(UInt64(1))), Self.location(1))
        XCTAssertEqual(ObjectIdentifier(tree.root!), root)
        XCTAssertEqual(leftmostLeaf(tree), leaf)
        // After a copy, the first mutation copies its path and the next ones change the copies.
        let snapshot = tree
        tree.updateValue(Self.location(-2), forKey: StorageKey(UInt64(0)))
        XCTAssertEqual(ObjectIdentifier(snapshot.root!), root)
        XCTAssertEqual(leftmostLeaf(snapshot), leaf)
        XCTAssertNotEqual(ObjectIdentifier(tree.root!), root)
        XCTAssertNotEqual(leftmostLeaf(tree), leaf)
        let copiedRoot = ObjectIdentifier(tree.root!), copiedLeaf = leftmostLeaf(tree)
        tree.updateValue(Self.location(-3), forKey: StorageKey(UInt64(0)))
        tree.updateValue(Self.location(-3), forKey: StorageKey(UInt64(2)))
        XCTAssertEqual(ObjectIdentifier(tree.root!), copiedRoot)
        XCTAssertEqual(leftmostLeaf(tree), copiedLeaf)
        XCTAssertEqual(snapshot[StorageKey(UInt64(0))], Self.location(-1))
        XCTAssertEqual(tree[StorageKey(UInt64(0))], Self.location(-3))
    }

    func testRemovingAnAbsentKeyFromASharedTreeCopiesNothing() {
        var tree = KeyTree(leafCapacity: 4, branchCapacity: 4)
        for i in stride(from: 0, to: 2000, by: 2) { tree.updateValue(Self.location(i), forKey: StorageKey(UInt64(i))) }
        var copy = tree
        XCTAssertNil(copy.removeValue(forKey: StorageKey(UInt64(1001))))
        XCTAssertTrue(copy.root === tree.root)
        // Only the path to the removed key is copied: the root's other children stay shared.
        XCTAssertEqual(copy.removeValue(forKey: StorageKey(UInt64(1000))), Self.location(1000))
        XCTAssertFalse(copy.root === tree.root)
        let shared = (0..<tree.root!.childCount).filter { copy.root!.children[$0] === tree.root!.children[$0] }
        XCTAssertGreaterThanOrEqual(shared.count, tree.root!.childCount - 2)
        XCTAssertEqual(tree[StorageKey(UInt64(1000))], Self.location(1000))
        XCTAssertEqual(tree.count, 1000)
        XCTAssertEqual(copy.count, 999)
    }

    // MARK: Orders and shapes

    func testAscendingDescendingAndRandomOrders() {
        var random = seededGenerator(30)
        let n = 20_000
        let orders: [(String, [Int])] = [
            ("ascending", Array(0..<n)), ("descending", Array((0..<n).reversed())),
            ("random", Array(0..<n).shuffled(using: &random)),
        ]
        for (name, order) in orders {
            for (leafCapacity, branchCapacity) in [(64, 64), (4, 3), (7, 5)] {
                var tree = KeyTree(leafCapacity: leafCapacity, branchCapacity: branchCapacity)
                for i in order { tree.updateValue(Self.location(i), forKey: StorageKey(UInt64(i))) }
                let context = "\(name) \(leafCapacity)/\(branchCapacity)"
                XCTAssertNoThrow(try tree.checkInvariants(), context)
                XCTAssertEqual(tree.count, n, context)
                XCTAssertEqual(Array(tree.keys), (0..<n).map { StorageKey(UInt64($0)) }, context)
                for i in order.prefix(1000) { XCTAssertEqual(tree[StorageKey(UInt64(i))], Self.location(i), context) }
                let leaves = tree.shape.leafCount
                if name == "random" {
                    // Splits in the middle keep leaves at least about half full.
                    XCTAssertLessThanOrEqual(leaves, 2 * n / leafCapacity + 2, context)
                } else {
                    // Appends and prepends leave full leaves behind them.
                    XCTAssertEqual(leaves, (n + leafCapacity - 1) / leafCapacity, context)
                }
            }
        }
    }

    func testRemovalDownToEmptyAndRegrowth() {
        var random = seededGenerator(40)
        for (leafCapacity, branchCapacity) in [(64, 64), (2, 3), (4, 4)] {
            var tree = KeyTree(leafCapacity: leafCapacity, branchCapacity: branchCapacity)
            let context = "\(leafCapacity)/\(branchCapacity)"
            for round in 0..<3 {
                let keys = (0..<5000).map { _ in StorageKey(UInt64.random(in: 0..<1_000_000, using: &random)) }
                var model: [StorageKey: RecordLocation] = [:]
                for (index, key) in keys.enumerated() {
                    tree.updateValue(Self.location(index), forKey: key)
                    model[key] = Self.location(index)
                }
                assertTree(tree, equals: model, "\(context) round \(round) full")
                let snapshot = tree
                let removalOrder = model.keys.sorted(by: Self.bytewisePrecedes).shuffled(using: &random)
                for (index, key) in removalOrder.enumerated() {
                    XCTAssertEqual(tree.removeValue(forKey: key), model[key], context)
                    XCTAssertNil(tree.removeValue(forKey: key), context)
                    if index % 500 == 0 { XCTAssertNoThrow(try tree.checkInvariants(), context) }
                }
                XCTAssertTrue(tree.isEmpty, context)
                XCTAssertEqual(tree.count, 0, context)
                XCTAssertNil(tree.root, context)
                var emptyIterator = tree.makeIterator()
                XCTAssertNil(emptyIterator.next(), context)
                XCTAssertNoThrow(try tree.checkInvariants(), context)
                assertTree(snapshot, equals: model, "\(context) round \(round) snapshot")
            }
        }
    }

    func testRemovalKeepsNodesFilled() {
        // Removing three keys in four from a tree built in random order: merges and refills keep
        // the leaves from staying as many, and as empty, as they were.
        var random = seededGenerator(41)
        var tree = KeyTree()
        let n = 50_000
        for i in Array(0..<n).shuffled(using: &random) { tree.updateValue(Self.location(i), forKey: StorageKey(UInt64(i))) }
        for i in stride(from: 0, to: n, by: 2) { tree.removeValue(forKey: StorageKey(UInt64(i))) }
        for i in stride(from: 1, to: n, by: 4) { tree.removeValue(forKey: StorageKey(UInt64(i))) }
        XCTAssertNoThrow(try tree.checkInvariants())
        XCTAssertEqual(tree.count, n / 4)
        // Leaves a removal touched keep at least a quarter of their capacity.
        XCTAssertLessThanOrEqual(tree.shape.leafCount, tree.count / 12)
    }

    // MARK: Iteration

    func testIterationFromLowerBound() {
        for (leafCapacity, branchCapacity) in [(64, 64), (2, 3), (5, 4)] {
            var tree = KeyTree(leafCapacity: leafCapacity, branchCapacity: branchCapacity)
            var emptyIterator = tree.makeIterator(from: StorageKey(UInt64(0)))
            XCTAssertNil(emptyIterator.next())
            // Even keys 0, 2, … 1998.
            for i in stride(from: 0, to: 2000, by: 2) { tree.updateValue(Self.location(i), forKey: StorageKey(UInt64(i))) }
            func keys(from lowerBound: StorageKey) -> [StorageKey] {
                var iterator = tree.makeIterator(from: lowerBound)
                var keys: [StorageKey] = []
                while let (key, value) = iterator.next() {
                    XCTAssertEqual(value, tree[key])
                    keys.append(key)
                }
                return keys
            }
            let context = "\(leafCapacity)/\(branchCapacity)"
            for start in [0, 1, 2, 63, 64, 65, 999, 1000, 1001, 1997, 1998] {
                let expected = stride(from: (start + 1) / 2 * 2, to: 2000, by: 2).map { StorageKey(UInt64($0)) }
                XCTAssertEqual(keys(from: StorageKey(UInt64(start))), expected, "\(context) from \(start)")
            }
            XCTAssertEqual(keys(from: StorageKey(UInt64(1999))), [], context)
            XCTAssertEqual(keys(from: StorageKey(UInt64.max)), [], context)
            // A shorter key sorts before every 8-byte key it prefixes; a longer one after.
            XCTAssertEqual(keys(from: StorageKey([])).count, 1000, context)
            XCTAssertEqual(keys(from: StorageKey([0, 0, 0, 0, 0, 0, 0])).count, 1000, context)
            XCTAssertEqual(keys(from: StorageKey([0, 0, 0, 0, 0, 0, 0, 0, 0])).count, 999, context)
            XCTAssertEqual(keys(from: StorageKey([0xff])), [], context)
        }
    }

    func testIterationFromLowerBoundWithMixedKeys() {
        var random = seededGenerator(50)
        let pool = Self.keyPool(size: 3000, &random)
        var tree = KeyTree(leafCapacity: 6, branchCapacity: 4)
        for key in pool.prefix(2000) { tree.updateValue(Self.location(key.count), forKey: key) }
        let sorted = pool.prefix(2000).sorted(by: Self.bytewisePrecedes)
        for probe in pool.shuffled(using: &random).prefix(300) {
            let expected = sorted.filter { !Self.bytewisePrecedes($0, probe) }
            var iterator = tree.makeIterator(from: probe)
            var actual: [StorageKey] = []
            while let (key, _) = iterator.next() { actual.append(key) }
            XCTAssertEqual(actual, expected, "from \(probe)")
        }
    }

    func testIteratorSeesTheTreeAsItWasWhenMade() {
        var tree = KeyTree(leafCapacity: 4, branchCapacity: 3)
        for i in 0..<100 { tree.updateValue(Self.location(i), forKey: StorageKey(UInt64(i))) }
        var iterator = tree.makeIterator()
        for i in 0..<100 { tree.removeValue(forKey: StorageKey(UInt64(i))) }
        tree.updateValue(Self.location(0), forKey: StorageKey("new"))
        var seen: [StorageKey] = []
        while let (key, _) = iterator.next() { seen.append(key) }
        XCTAssertEqual(seen, (0..<100).map { StorageKey(UInt64($0)) })
    }

    // MARK: Threads

    func testConcurrentReadersOfSnapshotsWhileTheTreeChanges() {
        var tree = KeyTree()
        for i in 0..<20_000 { tree.updateValue(Self.location(i), forKey: StorageKey(UInt64(i))) }
        let snapshot = tree
        let failures = Locked(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            if worker == 0 {
                // The writer: its own copy, mutated in place after the first path copies.
                var writer = snapshot
                for i in 0..<20_000 { writer.updateValue(Self.location(-i), forKey: StorageKey(UInt64(i))) }
                for i in 20_000..<40_000 { writer.updateValue(Self.location(i), forKey: StorageKey(UInt64(i))) }
                for i in stride(from: 0, to: 40_000, by: 3) { writer.removeValue(forKey: StorageKey(UInt64(i))) }
                if writer.count != 40_000 - 13_334 { failures.withLock { $0 += 1 } }
            } else {
                for round in 0..<3 {
                    var expected = 0
                    for (key, value) in snapshot {
                        if key != StorageKey(UInt64(expected)) || value != Self.location(expected) { failures.withLock { $0 += 1 } }
                        expected += 1
                    }
                    for i in 0..<20_000 where snapshot[StorageKey(UInt64((i * 7919 + round) % 20_000))] == nil {
                        failures.withLock { $0 += 1 }
                    }
                    if expected != 20_000 { failures.withLock { $0 += 1 } }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
        XCTAssertNoThrow(try snapshot.checkInvariants())
    }

    // MARK: The invariant checker

    func testInvariantCheckerFindsBrokenTrees() {
        func tree() -> KeyTree {
            var tree = KeyTree(leafCapacity: 4, branchCapacity: 4)
            for i in 0..<100 { tree.updateValue(Self.location(i), forKey: StorageKey(UInt64(i))) }
            XCTAssertNoThrow(try tree.checkInvariants())
            return tree
        }
        func firstLeaf(_ tree: KeyTree) -> KeyTree.Node {
            var node = tree.root!
            while !node.isLeaf { node = node.children[0] }
            return node
        }
        // Keys out of order within a leaf.
        let unordered = tree()
        let leaf = firstLeaf(unordered)
        swap(&leaf.highWords[0], &leaf.highWords[1])
        XCTAssertThrowsError(try unordered.checkInvariants())
        // A key outside its separators.
        let misplaced = tree()
        let lastLeafOfFirstChild = firstLeaf(misplaced)
        lastLeafOfFirstChild.replaceKey(at: lastLeafOfFirstChild.count - 1, with: KeyTree.SortKey(StorageKey(UInt64(5000))))
        XCTAssertThrowsError(try misplaced.checkInvariants())
        // A wrong count.
        var miscounted = tree()
        miscounted.removeValue(forKey: StorageKey(UInt64(0)))
        firstLeaf(miscounted).count -= 1
        XCTAssertThrowsError(try miscounted.checkInvariants())
    }
}
