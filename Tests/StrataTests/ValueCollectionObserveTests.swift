import Dispatch
import Foundation
@_spi(Testing) import StrataStorage
import XCTest

@testable import Strata

final class VTag: EmbeddedObject {
    @Persisted var label: String
    @Persisted var weight: Int
}

final class VHolder: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted var scores: List<Int>
    @Persisted var words: MutableSet<String>
    @Persisted var tags: List<VTag>
    @Persisted var counts: Map<String, Int>
    @Persisted var dogs: Map<String, NDog?>
}

/// `observe` on lists and sets of values and of embedded objects, and on maps — after Realm's
/// PrimitiveListTests / MapTests `testObserve*`: a value replaced in place is a modification,
/// an embedded object is modified when its fields change, a map reports keys.
final class ValueCollectionObserveTests: DatabaseTestCase {
    enum Event<Value: Sendable & Equatable>: Equatable, Sendable {
        case initial([Value])
        case update([Value], deletions: [Int], insertions: [Int], modifications: [Int])
        case error
    }

    enum MapEvent: Equatable, Sendable {
        case initial([String])
        case update([String], deletions: [String], insertions: [String], modifications: [String])
        case error
    }

    private func record<C: Sequence & SendableMetatype, Value>(_ log: DeliveryLog<Event<Value>>, _ read: @escaping @Sendable (C.Element) -> Value) -> @Sendable (CollectionChange<C>) -> Void {
        { change in
            switch change {
            case .initial(let c): log.append(.initial(c.map(read)))
            case .update(let c, let d, let i, let m): log.append(.update(c.map(read), deletions: d, insertions: i, modifications: m))
            case .error: log.append(.error)
            }
        }
    }

    private func recordMap<V: SendableMetatype>(_ log: DeliveryLog<MapEvent>) -> @Sendable (MapChange<Map<String, V>>) -> Void {
        { change in
            switch change {
            case .initial(let map): log.append(.initial(map.keys))
            case .update(let map, let d, let i, let m): log.append(.update(map.keys, deletions: d, insertions: i, modifications: m))
            case .error: log.append(.error)
            }
        }
    }

    private func holder() throws -> (Database, VHolder) {
        let db = try open([VHolder.self, VTag.self, NDog.self, NPerson.self])
        let holder = VHolder()
        holder.name = "h"
        holder.scores.append(objectsIn: [1, 2, 3])
        try db.write { try db.add(holder) }
        return (db, holder)
    }

    func testAListOfValuesReportsAReplacedValueAsAModification() throws {
        let (db, holder) = try holder()
        let log = DeliveryLog<Event<Int>>()
        let token = holder.scores.observe(record(log) { $0 })
        log.wait { $0.count == 1 }
        try db.write { holder.scores[1] = 20 }
        log.wait { $0.count == 2 }
        try db.write { holder.scores.append(4); holder.scores.remove(at: 0) }
        log.wait { $0.count == 3 }
        try db.write { holder.scores.move(from: 0, to: 2) }
        log.wait { $0.count == 4 }
        try db.write { holder.scores[0] = 3 }   // the same value: nothing changed
        try db.write { holder.scores[0] = 30; holder.scores[1] = 40 }
        log.wait { $0.count == 5 }
        token.invalidate()
        XCTAssertEqual(log.all, [
            .initial([1, 2, 3]),
            .update([1, 20, 3], deletions: [], insertions: [], modifications: [1]),
            .update([20, 3, 4], deletions: [0], insertions: [2], modifications: []),
            .update([3, 4, 20], deletions: [0], insertions: [2], modifications: []),
            .update([30, 40, 20], deletions: [], insertions: [], modifications: [0, 1]),
        ])
    }

    func testASetOfValuesAndAListOfEmbeddedObjects() throws {
        let (db, holder) = try holder()
        let words = DeliveryLog<Event<String>>()
        let tags = DeliveryLog<Event<String>>()
        let wordsToken = holder.words.observe(record(words) { $0 })
        let tagsToken = holder.tags.observe(keyPaths: ["weight"], record(tags) { "\($0.label):\($0.weight)" })
        words.wait { $0.count == 1 }
        tags.wait { $0.count == 1 }
        try db.write {
            holder.words.insert("a")
            let tag = VTag()
            (tag.label, tag.weight) = ("x", 1)
            holder.tags.append(tag)
        }
        words.wait { $0.count == 2 }
        tags.wait { $0.count == 2 }
        try db.write { holder.tags[0].label = "y" }   // not an observed property
        try db.write { holder.tags[0].weight = 2 }
        tags.wait { $0.count == 3 }
        try db.write { holder.tags.remove(at: 0) }
        tags.wait { $0.count == 4 }
        wordsToken.invalidate()
        tagsToken.invalidate()
        XCTAssertEqual(words.all, [.initial([]), .update(["a"], deletions: [], insertions: [0], modifications: [])])
        XCTAssertEqual(tags.all, [
            .initial([]),
            .update(["x:1"], deletions: [], insertions: [0], modifications: []),
            .update(["y:2"], deletions: [], insertions: [], modifications: [0]),
            .update([], deletions: [0], insertions: [], modifications: []),
        ])
    }

    func testKeyPathsOnValuesAreAnError() throws {
        let (_, holder) = try holder()
        let log = DeliveryLog<Event<Int>>()
        let token = holder.scores.observe(keyPaths: ["age"], record(log) { $0 })
        log.wait { $0.count == 1 }
        XCTAssertEqual(log.all, [.error])
        token.invalidate()
    }

    func testAMapReportsKeys() throws {
        let (db, holder) = try holder()
        let counts = DeliveryLog<MapEvent>()
        let dogs = DeliveryLog<MapEvent>()
        let countsToken = holder.counts.observe(recordMap(counts))
        let dogsToken = holder.dogs.observe(keyPaths: ["age"], recordMap(dogs))
        counts.wait { $0.count == 1 }
        dogs.wait { $0.count == 1 }
        let rex = NDog()
        rex.name = "Rex"
        try db.write {
            holder.counts["a"] = 1
            holder.counts["b"] = 2
            holder.dogs["best"] = rex
        }
        counts.wait { $0.count == 2 }
        dogs.wait { $0.count == 2 }
        try db.write {
            holder.counts["a"] = 5
            holder.counts["b"] = nil
            holder.counts["c"] = 3
            rex.breed = "collie"    // not observed
        }
        counts.wait { $0.count == 3 }
        try db.write { rex.age = 4 }
        dogs.wait { $0.count == 3 }
        try db.write { try db.delete(holder) }
        counts.wait { $0.count == 4 }
        dogs.wait { $0.count == 4 }
        countsToken.invalidate()
        dogsToken.invalidate()
        XCTAssertEqual(counts.all, [
            .initial([]),
            .update(["a", "b"], deletions: [], insertions: ["a", "b"], modifications: []),
            .update(["a", "c"], deletions: ["b"], insertions: ["c"], modifications: ["a"]),
            .update([], deletions: ["a", "c"], insertions: [], modifications: []),
        ])
        XCTAssertEqual(dogs.all, [
            .initial([]),
            .update(["best"], deletions: [], insertions: ["best"], modifications: []),
            .update(["best"], deletions: [], insertions: [], modifications: ["best"]),
            .update([], deletions: ["best"], insertions: [], modifications: []),
        ])
    }

    /// Random edits of a list of values: applying each delivery's deletions, insertions and
    /// modifications to the previous delivery's values gives the new values.
    func testRandomListEditsReplayExactly() throws {
        let (db, holder) = try holder()
        let log = DeliveryLog<Event<Int>>()
        let token = holder.scores.observe(record(log) { $0 })
        var generator = SplitMix64(seed: 12)
        for round in 0..<60 {
            try db.write {
                for _ in 0..<Int.random(in: 1...3, using: &generator) {
                    let count = holder.scores.count
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: holder.scores.insert(Int.random(in: 0..<6, using: &generator), at: Int.random(in: 0...count, using: &generator))
                    case 1 where count > 0: holder.scores.remove(at: Int.random(in: 0..<count, using: &generator))
                    case 2 where count > 0: holder.scores[Int.random(in: 0..<count, using: &generator)] = Int.random(in: 0..<6, using: &generator)
                    case 3 where count > 1: holder.scores.move(from: Int.random(in: 0..<count, using: &generator), to: Int.random(in: 0..<count, using: &generator))
                    default: holder.scores.append(round)
                    }
                }
            }
            if round % 7 == 0 { ChangeObserver.defaultQueue.sync {} }
        }
        let final = Array(holder.scores)
        log.wait { entries in
            if case .update(let values, _, _, _) = entries.last { return values == final }
            if case .initial(let values) = entries.last { return values == final }
            return false
        }
        token.invalidate()
        var previous: [Int]?
        for event in log.all {
            switch event {
            case .initial(let values): previous = values
            case .update(let values, let deletions, let insertions, let modifications):
                guard let old = previous else { return XCTFail("an update before the initial delivery") }
                XCTAssertEqual(Self.replay(old, values, deletions, insertions, modifications), values)
                previous = values
            case .error: XCTFail("error")
            }
        }
    }

    /// The previous values with the deletions removed, the modified ones marked, the new values
    /// inserted at the insertions, and each marked one taken from the new values (it must have
    /// changed).
    static func replay(_ old: [Int], _ new: [Int], _ deletions: [Int], _ insertions: [Int], _ modifications: [Int]) -> [Int]? {
        var working: [Int?] = old.map { $0 }
        for position in modifications { working[position] = nil }
        for position in deletions.reversed() { working.remove(at: position) }
        for position in insertions { working.insert(new[position], at: position) }
        guard working.count == new.count else { return nil }
        var result: [Int] = []
        for (position, value) in working.enumerated() {
            guard let value else {
                result.append(new[position])
                continue
            }
            result.append(value)
        }
        return result
    }
}
