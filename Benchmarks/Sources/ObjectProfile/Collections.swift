// `ObjectProfile collections [n …]`: the cost of one change of a collection as it grows, for
// each n (default 1,000, 10,000 and 100,000), each workload in a new database (`.none`):
//
//   list-append     n links appended one by one to one object's `List` in one write (the
//                   targets: min(n, 10,000) objects added in an earlier write, linked in turn)
//   map-set-asc     n keys set one by one in one object's `Map<String, Int>` in one write, in
//                   ascending key order
//   map-set-random  the same keys in a shuffled order (seeded)
//   map-get         then each key read once, in the shuffled order, in the same write
//   set-insert      n integers inserted one by one in one object's `MutableSet<Int>` in one write
//   unmanaged-map   n keys set one by one in an unmanaged `Map<String, Int>`
//   dictionary      the same in a `[String: Int]`, for scale
//
// Each line gives the total time, the mean per operation and the mean of the last tenth of the
// operations (the cost of one change at about n elements), and the load average. A workload
// that passes OBJECTPROFILE_BUDGET seconds (default 120) stops there, says how far it got and
// gives the mean of its last 256 operations instead.

import Foundation
import ObjectWorkloads
import StorageWorkloads
import Strata

final class CollectionTarget: Object {
    @Persisted(primaryKey: true) var id: Int
}

final class CollectionOwner: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var links: List<CollectionTarget>
    @Persisted var scores: Map<String, Int>
    @Persisted var numbers: MutableSet<Int>
}

let collectionBudget = ProcessInfo.processInfo.environment["OBJECTPROFILE_BUDGET"].flatMap { Double($0) } ?? 120

/// Times `operations` calls of `body` (given 0..<operations), stopping early past the budget:
/// the total, the mean per call, and the mean of the last tenth (or, when stopped, of the last
/// 256 calls).
func timedOperations(_ label: String, _ operations: Int, _ body: (Int) throws -> Void) rethrows {
    let lastTenth = operations - operations / 10
    let start = DispatchTime.now().uptimeNanoseconds
    var tailStart = start
    var windowStart = start
    var windowTime: UInt64 = 0
    var done = 0
    while done < operations {
        if done == lastTenth { tailStart = DispatchTime.now().uptimeNanoseconds }
        try body(done)
        done += 1
        if done % 256 == 0 {
            let now = DispatchTime.now().uptimeNanoseconds
            windowTime = now - windowStart
            windowStart = now
            if Double(now - start) / 1e9 > collectionBudget { break }
        }
    }
    let end = DispatchTime.now().uptimeNanoseconds
    let total = Double(end - start) / 1e9
    var tail = ""
    if done < operations {
        tail = String(
            format: ", last 256 %.2f µs/op (STOPPED after %d of %d: budget %.0f s)",
            Double(windowTime) / 1e3 / 256, done, operations, collectionBudget)
    } else if done > lastTenth {
        tail = String(format: ", last tenth %.2f µs/op", Double(end - tailStart) / 1e3 / Double(done - lastTenth))
    }
    print(String(
        format: "  %@ n=%d: %.3f s, %.2f µs/op%@ [%@]",
        label, operations, total, total * 1e6 / Double(max(done, 1)), tail, loadAverage()))
    fflush(nil)  // every line out before a long run that may be cut short
}

/// Map keys "k" + 8 digits: ascending as strings in the order of their numbers.
func mapKey(_ i: Int) -> String {
    let digits = String(i)
    return "k" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}

/// 0..<n in a shuffled order, the same for every run.
func shuffledOrder(_ n: Int) -> [Int] {
    var order = Array(0..<n)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for i in stride(from: n - 1, to: 0, by: -1) {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        order.swapAt(i, Int((state >> 33) % UInt64(i + 1)))
    }
    return order
}

/// Runs `body` on a new database holding one owner (id 0), inside one write.
func withOwner(_ label: String, _ body: (CollectionOwner, Strata.Database) throws -> Void) throws {
    try scratch("profile-collections") { directory in
        let db = try ObjectWorkloads.openStrata(
            directory, durability: .none, objectTypes: [CollectionOwner.self, CollectionTarget.self])
        try db.write { _ = try db.create(CollectionOwner.self, value: ["id": 0]) }
        let owner = db.object(ofType: CollectionOwner.self, forPrimaryKey: 0)!
        try db.write { try body(owner, db) }
    }
}

func listAppends(_ n: Int) throws {
    try scratch("profile-collections") { directory in
        let db = try ObjectWorkloads.openStrata(
            directory, durability: .none, objectTypes: [CollectionOwner.self, CollectionTarget.self])
        let targetCount = min(n, 10_000)
        try db.write {
            _ = try db.create(CollectionOwner.self, value: ["id": 0])
            for i in 0..<targetCount { _ = try db.create(CollectionTarget.self, value: ["id": i]) }
        }
        let owner = db.object(ofType: CollectionOwner.self, forPrimaryKey: 0)!
        let targets = Array(db.objects(CollectionTarget.self))
        try db.write {
            timedOperations("list-append", n) { i in owner.links.append(targets[i % targetCount]) }
        }
        precondition(owner.links.count <= n && owner.links.count > 0)
    }
}

func mapSets(_ n: Int) throws {
    let keys = (0..<n).map(mapKey)
    let order = shuffledOrder(n)
    try withOwner("map-set-asc") { owner, _ in
        timedOperations("map-set-asc", n) { i in owner.scores[keys[i]] = i }
    }
    try withOwner("map-set-random") { owner, _ in
        timedOperations("map-set-random", n) { i in owner.scores[keys[order[i]]] = i }
        var sum = 0
        timedOperations("map-get", n) { i in sum &+= owner.scores[keys[order[i]]] ?? 0 }
        precondition(sum > 0 || n < 2)
    }
    try withOwner("set-insert") { owner, _ in
        timedOperations("set-insert", n) { i in owner.numbers.insert(order[i]) }
    }
    let unmanaged = Map<String, Int>()
    timedOperations("unmanaged-map", n) { i in unmanaged[keys[order[i]]] = i }
    var dictionary: [String: Int] = [:]
    timedOperations("dictionary", n) { i in dictionary[keys[order[i]]] = i }
    precondition(unmanaged.count <= dictionary.count)
}

/// The collection workloads for each of `sizes`.
func collectionChanges(_ sizes: [Int]) throws {
    for n in sizes {
        print("collections, n = \(n):")
        try listAppends(n)
        try mapSets(n)
    }
}
