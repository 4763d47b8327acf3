// The change-notification workloads (issue 12's figures):
//
// | workload | what is measured |
// |:--|:--|
// | delivery latency | one write changing one observed `age`, from the start of `db.write` to the `.update` (or `.change`) callback on the observer's queue; the next write waits for the delivery |
// | insert with observers | the insert workload (`strataInsert`) into an empty database, with no observer and with 10 (5 `Results`, 3 objects, 2 lists), on one delivery queue |
//
// Times come from the monotonic clock (`DispatchTime.now().uptimeNanoseconds`).

import Dispatch
import Strata
import StrataStorage

/// An object the notification workloads observe besides the items: its own properties (3 object
/// observers) and its `items` list (2 list observers). The lists stay empty: the insert workload
/// adds items only.
public final class NotifyOwner: Object {
    @Persisted(primaryKey: true) public var _id: Int
    @Persisted public var name: String
    @Persisted public var items: List<StrataItem>
}

extension ObjectWorkloads {
    /// Objects in the database of the delivery-latency workload.
    public static let notifyObjectCount = 100_000
    /// Timed writes of each delivery-latency run (after ``notifyWarmUpWrites`` untimed ones).
    public static let notifyWrites = 300
    /// Untimed writes before the timed ones.
    public static let notifyWarmUpWrites = 20

    /// What the delivery-latency workload observes.
    public enum ObservedTarget: String, CaseIterable, Sendable {
        /// `db.objects(StrataItem.self).where { $0.age >= 0 }`: a filtered `Results` that matches
        /// every object.
        case filtered = "Results where age >= 0 (all match)"
        /// `db.objects(StrataItem.self)`: the whole class.
        case all = "Results of the whole class"
        /// One object (`Object.observe`), the one every write changes.
        case object = "one object (Object.observe)"
    }

    /// One delivery-latency run: for each timed write, nanoseconds from the start of `db.write`
    /// to its return (`commit`) and to the callback (`delivery`); and the process's wall-clock
    /// and CPU time over the timed writes (every thread, the delivery queue's included).
    public struct LatencyRun: Sendable {
        public var commit: [UInt64]
        public var delivery: [UInt64]
        public var timing: Timing
    }

    /// What a callback saw, written on the delivery queue and read by the writer after the
    /// semaphore the callback signals.
    private final class Arrival: @unchecked Sendable {
        var nanoseconds: UInt64 = 0
        var modifications = 0
        var initial = false
        let signal = DispatchSemaphore(value: 0)

        func record(modifications: Int, initial: Bool = false) {
            nanoseconds = DispatchTime.now().uptimeNanoseconds
            self.modifications = modifications
            self.initial = initial
            signal.signal()
        }
    }

    /// Observes `target` in `db` (``loadStrata(count:in:)``'s items) on a queue of its own, then
    /// makes `warmUps + writes` writes, each setting one object's `age` to another value
    /// (objects spread over the ids; always the observed one for `.object`), each waiting for
    /// its delivery. Traps if a delivery is not the one modification written.
    public static func deliveryLatencies(
        _ target: ObservedTarget, in db: Strata.Database, count: Int,
        writes: Int = notifyWrites, warmUps: Int = notifyWarmUpWrites
    ) throws -> LatencyRun {
        let queue = DispatchQueue(label: "notify-latency")
        let arrival = Arrival()
        let observedID = count / 2
        let token: NotificationToken
        switch target {
        case .filtered, .all:
            let results = target == .all ? db.objects(StrataItem.self) : db.objects(StrataItem.self).where { $0.age >= 0 }
            token = results.observe(on: queue) { change in
                switch change {
                case .initial: arrival.record(modifications: 0, initial: true)
                case .update(_, let deletions, let insertions, let modifications):
                    precondition(deletions.isEmpty && insertions.isEmpty, "a write of age deleted or inserted")
                    arrival.record(modifications: modifications.count)
                case .error(let error): fatalError("observation failed: \(error)")
                }
            }
            arrival.signal.wait()
            precondition(arrival.initial)
        case .object:
            let item = db.object(ofType: StrataItem.self, forPrimaryKey: observedID)!
            token = item.observe(on: queue) { (change: ObjectChange<StrataItem>) in
                switch change {
                case .change(_, let properties): arrival.record(modifications: properties.count)
                case .deleted: fatalError("the observed object was deleted")
                case .error(let error): fatalError("observation failed: \(error)")
                }
            }
        }
        defer {
            token.invalidate()
            queue.sync {}
        }
        var commit: [UInt64] = []
        var delivery: [UInt64] = []
        commit.reserveCapacity(writes)
        delivery.reserveCapacity(writes)
        func write(_ n: Int, timed: Bool) throws {
            // A prime stride spreads the written objects over the ids.
            let id = target == .object ? observedID : (n &* 7919) % count
            let item = db.object(ofType: StrataItem.self, forPrimaryKey: id)!
            let age = item.age % 99 + 1  // in 1...99, never the current age
            let start = DispatchTime.now().uptimeNanoseconds
            try db.write { item.age = age }
            let committed = DispatchTime.now().uptimeNanoseconds
            arrival.signal.wait()
            precondition(!arrival.initial && arrival.modifications == 1, "expected one modification")
            if timed {
                commit.append(committed - start)
                delivery.append(arrival.nanoseconds - start)
            }
        }
        for n in 0..<warmUps { try write(n, timed: false) }
        let timing = try timed {
            for n in warmUps..<(warmUps + writes) { try write(n, timed: true) }
        }
        return LatencyRun(commit: commit, delivery: delivery, timing: timing)
    }

    // MARK: Inserts with observers

    /// One run of the insert workload with observers or without.
    public struct ObservedInsertRun: Sendable {
        /// The inserts (the writes only), wall-clock and process CPU time (observer threads
        /// included).
        public var timing: Timing
        /// Seconds from the last write's return until the observers had delivered it (0
        /// without observers).
        public var drain: Double
        /// Callbacks run during the inserts and the drain, by kind of observer.
        public var resultsDeliveries = 0
        public var objectDeliveries = 0
        public var listDeliveries = 0
    }

    /// Counts callbacks; touched only on the delivery queue (read after draining it).
    private final class CallbackTally: @unchecked Sendable {
        var results = 0
        var objects = 0
        var lists = 0
    }

    /// The observers of an observed insert run: 5 on `Results` of the items (the whole class,
    /// `age > 50`, `age < 10` observing `age` only, `score >= 900`, `age == 7` sorted by
    /// `score`), 3 on owners 1...3 (every property) and 2 on owners 1 and 2's `items` lists.
    private static func observers(of db: Strata.Database, on queue: DispatchQueue, tally: CallbackTally, ready: DispatchSemaphore)
        -> [NotificationToken]
    {
        let items = db.objects(StrataItem.self)
        let results: [(Results<StrataItem>, [String]?)] = [
            (items, nil),
            (items.where { $0.age > 50 }, nil),
            (items.where { $0.age < 10 }, ["age"]),
            (items.where { $0.score >= 900 }, nil),
            (items.where { $0.age == 7 }.sorted(by: \.score), nil),
        ]
        var tokens = results.map { results, keyPaths in
            results.observe(keyPaths: keyPaths, on: queue) { change in
                if case .initial = change { ready.signal() } else { tally.results += 1 }
            }
        }
        let owners = (1...3).map { db.object(ofType: NotifyOwner.self, forPrimaryKey: $0)! }
        for owner in owners {
            tokens.append(owner.observe(on: queue) { (_: ObjectChange<NotifyOwner>) in tally.objects += 1 })
        }
        for owner in owners.prefix(2) {
            tokens.append(owner.items.observe(on: queue) { change in
                if case .initial = change { ready.signal() } else { tally.lists += 1 }
            })
        }
        return tokens
    }

    /// The collection observers among ``observers(of:on:tally:ready:)`` (each signals `ready`
    /// at its initial delivery).
    static let collectionObservers = 7

    /// Inserts `count` items as ``strataInsert(count:into:)`` does into a new database in
    /// `directory` that also holds owners 1...3 (made before, untimed); with `observed`, the 10
    /// observers of ``observers(of:on:tally:ready:)`` watch it from one serial queue (registered
    /// and their initial deliveries done before the timing starts).
    public static func observedInsert(
        count: Int = objectCount, durability: Durability, observed: Bool, in directory: String
    ) throws -> ObservedInsertRun {
        let db = try openStrata(directory, durability: durability, objectTypes: [StrataItem.self, NotifyOwner.self])
        try db.write {
            for id in 1...3 {
                let owner = NotifyOwner()
                owner._id = id
                owner.name = "owner-\(id)"
                try db.add(owner)
            }
        }
        let queue = DispatchQueue(label: "notify-insert")
        let tally = CallbackTally()
        let ready = DispatchSemaphore(value: 0)
        var tokens: [NotificationToken] = []
        if observed {
            tokens = observers(of: db, on: queue, tally: tally, ready: ready)
            for _ in 0..<collectionObservers { ready.wait() }
        }
        let timing = try timed { try strataInsert(count: count, into: db) }
        // Every delivery the last commit queued is on the queue when `write` returns.
        let drainStart = DispatchTime.now().uptimeNanoseconds
        queue.sync {}
        let drain = observed ? Double(DispatchTime.now().uptimeNanoseconds - drainStart) / 1e9 : 0
        for token in tokens { token.invalidate() }
        queue.sync {}
        precondition(db.objects(StrataItem.self).count == count)
        // The queue has run everything that touched the tally.
        return ObservedInsertRun(
            timing: timing, drain: drain, resultsDeliveries: tally.results, objectDeliveries: tally.objects,
            listDeliveries: tally.lists)
    }
}
