import Foundation
@_spi(Testing) import Strata
import StrataKillWorkload
import StrataStorage

/// Runs the kill workload in a child process, kills it with SIGKILL at seeded random moments,
/// and checks each reopened directory against the acknowledged commits.
///
/// After each kill: the database opens (read-only, then read-write); it holds commit k with
/// acknowledged ≤ k ≤ acknowledged + 1 (the one commit in flight); its contents equal the
/// workload's state after exactly k commits (a prefix: no holes, no deleted object back); every
/// link has its backlink and every backlink its link; the probe written after the previous
/// check is there, and a new write works. The next child goes on from k.
struct KillSweep {
    /// What a run did, for the report.
    struct Tally: CustomStringConvertible {
        var kills = 0
        var duringCompaction = 0
        var beforeReady = 0
        var unacknowledgedCommitKept = 0
        var commits = 0

        var description: String {
            "\(kills) kills (\(duringCompaction) during a compaction, \(beforeReady) before the writer was ready), "
                + "\(unacknowledgedCommitKept) kept the commit in flight, \(commits) commits"
        }
    }

    let seed: UInt64
    let directory: URL
    var segmentSize = 4096
    var compactEvery = 8
    /// Whether the writer's background compactor runs (besides its compactions every
    /// `compactEvery` commits).
    var backgroundCompaction = false

    /// Kills the writer `kills` times.
    /// - Returns: the tally, or the first failure (naming the seed and kill number).
    func run(kills: Int) -> Result<Tally, KillFailure> {
        var random = SplitMix64(seed: seed)
        var states = [KillState()]  // states[k]: the workload after k commits
        var tally = Tally()
        var verified = 0
        for kill in 1...kills {
            let fail = { (what: String) in KillFailure(message: "seed \(seed), kill \(kill): \(what)") }
            let events: [KillWriterProcess.Event]
            do {
                events = try runChild(killAt: KillMoment.random(using: &random), from: verified)
            } catch {
                return .failure(fail("the writer did not start: \(error)"))
            }
            if case .failed(let line)? = events.first(where: { if case .failed = $0 { true } else { false } }) {
                return .failure(fail("the writer failed: \(line)"))
            }
            var acknowledged = verified
            for case .committed(let number, let digest) in events {
                while states.count <= number + 1 { states.append(advanced(states.last!)) }
                guard states[number].digest == digest else {
                    return .failure(fail("the writer's commit \(number) differs from the workload's"))
                }
                acknowledged = number
            }
            while states.count <= acknowledged + 1 { states.append(advanced(states.last!)) }
            if let problem = check(acknowledged: acknowledged, states: states, probes: kill - 1) {
                return .failure(fail(problem))
            }
            let recovered = (try? committed()) ?? acknowledged
            tally.record(events, acknowledged: acknowledged, recovered: recovered)
            verified = recovered
        }
        tally.commits = verified
        return .success(tally)
    }

    private func advanced(_ state: KillState) -> KillState {
        var next = state
        next.apply(state.nextOperations(seed: seed))
        return next
    }

    /// Starts a writer and kills it at `moment`.
    private func runChild(killAt moment: KillMoment, from verified: Int) throws -> [KillWriterProcess.Event] {
        let child = try KillWriterProcess(
            directory: directory, seed: seed, segmentSize: segmentSize, compactEvery: compactEvery,
            lastCommit: 1_000_000, backgroundCompaction: backgroundCompaction)
        switch moment {
        case .afterCommits(let count, let delay):
            child.waitFor(timeout: 20) { if case .committed(let n, _) = $0 { n >= verified + count } else { false } }
            usleep(delay)
        case .inCompaction(let delay):
            child.waitFor(timeout: 20) { if case .compactionBegan = $0 { true } else { false } }
            usleep(delay)
        case .afterStart(let delay):
            usleep(delay)
        }
        return child.kill()
    }

    /// The checks after a kill; nil when all pass.
    private func check(acknowledged: Int, states: [KillState], probes: Int) -> String? {
        do {
            if let problem = try checkReadOnly(acknowledged: acknowledged, states: states, probes: probes) { return "read-only: \(problem)" }
            return try checkAndWrite(acknowledged: acknowledged, states: states, probes: probes)
        } catch {
            return "reopening failed: \(error)"
        }
    }

    private func open(readOnly: Bool) throws -> Database {
        var configuration = Database.Configuration(directory: directory, objectTypes: killObjectTypes)
        configuration.storageOptions.segmentSize = segmentSize
        configuration.storageOptions.readOnly = readOnly
        return try Database(configuration: configuration)
    }

    private func committed() throws -> Int {
        try open(readOnly: true).object(ofType: KillProgress.self, forPrimaryKey: 0)?.commit ?? 0
    }

    /// A writer killed before it created the database leaves none, and a read-only open finds
    /// none (`.notFound`); one killed before it committed the catalog leaves a store that a
    /// read-only `Database` cannot bind its classes in (`.readOnly`). Both are right only while
    /// nothing was ever committed or checked.
    private func checkReadOnly(acknowledged: Int, states: [KillState], probes: Int) throws -> String? {
        let db: Database
        do {
            db = try open(readOnly: true)
        } catch let error as StrataError where [.notFound, .readOnly].contains(error.code) && acknowledged == 0 && probes == 0 {
            return nil
        }
        return contentProblem(db, acknowledged: acknowledged, states: states)
    }

    private func checkAndWrite(acknowledged: Int, states: [KillState], probes: Int) throws -> String? {
        let db = try open(readOnly: false)
        if let problem = contentProblem(db, acknowledged: acknowledged, states: states) { return problem }
        let probe = db.object(ofType: KillProbe.self, forPrimaryKey: 0)
        guard (probe?.checks ?? 0) == probes else {
            return "the probe written after the last check holds \(probe?.checks ?? 0), expected \(probes)"
        }
        try db.write {
            if let probe { probe.checks += 1 } else { try db.add(KillProbe(value: ["id": 0, "checks": 1])) }
        }
        return nil
    }

    /// What is wrong with the contents of `db`, or nil.
    private func contentProblem(_ db: Database, acknowledged: Int, states: [KillState]) -> String? {
        let found = KillDatabase.readState(db)
        guard found.commit >= acknowledged else {
            return "commit \(acknowledged) was acknowledged, the database holds only up to \(found.commit)"
        }
        guard found.commit <= acknowledged + 1 else {
            return "the database holds commit \(found.commit), past the one in flight (\(acknowledged + 1))"
        }
        let expected = states[found.commit]
        if let back = expected.deletedIds.first(where: { found.persons[$0] != nil || found.pets[$0] != nil }) {
            return "object \(back), deleted by commit \(found.commit) or earlier, is back"
        }
        guard found.sameContents(as: expected) else {
            return "the contents differ from the state after commit \(found.commit): \(difference(found, expected))"
        }
        let problems = KillDatabase.backlinkProblems(db)
        return problems.isEmpty ? nil : "backlinks: \(problems.joined(separator: "; "))"
    }

    private func difference(_ found: KillState, _ expected: KillState) -> String {
        let persons = Set(found.persons.keys).union(expected.persons.keys).filter { found.persons[$0] != expected.persons[$0] }
        let pets = Set(found.pets.keys).union(expected.pets.keys).filter { found.pets[$0] != expected.pets[$0] }
        return persons.sorted().map { "person \($0): \(String(describing: found.persons[$0])) vs \(String(describing: expected.persons[$0]))" }
            .joined(separator: "; ") + " pets \(pets.sorted())"
    }
}

/// A failed check of `KillSweep`, naming the seed and the kill.
struct KillFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// When a `KillSweep` kills its writer.
enum KillMoment {
    /// `count` commits after it started, then `delay` µs later.
    case afterCommits(Int, delay: UInt32)
    /// `delay` µs after a compaction begins.
    case inCompaction(delay: UInt32)
    /// `delay` µs after it was started (while it starts or opens the database, often).
    case afterStart(delay: UInt32)

    static func random(using random: inout SplitMix64) -> KillMoment {
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4: .afterCommits(Int.random(in: 1...12, using: &random), delay: UInt32.random(in: 0...3_000, using: &random))
        case 4..<8: .inCompaction(delay: UInt32.random(in: 0...4_000, using: &random))
        default: .afterStart(delay: UInt32.random(in: 0...150_000, using: &random))
        }
    }
}

extension KillSweep.Tally {
    mutating func record(_ events: [KillWriterProcess.Event], acknowledged: Int, recovered: Int) {
        kills += 1
        var compacting = false
        var ready = false
        for event in events {
            switch event {
            case .ready: ready = true
            case .compactionBegan: compacting = true
            case .compactionEnded, .committed: compacting = false
            case .failed: break
            }
        }
        if compacting { duringCompaction += 1 }
        if !ready { beforeReady += 1 }
        if recovered > acknowledged { unacknowledgedCommitKept += 1 }
    }
}
