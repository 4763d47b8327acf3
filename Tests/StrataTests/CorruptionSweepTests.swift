import Foundation
import StrataCorruptionSweep
import XCTest

/// Every byte (or a dense, seeded sample) of every segment and the MANIFEST of a small object
/// database, damaged on a fresh copy: inverted, one bit flipped, zeroed, the file cut there.
/// `STRATA_CORRUPTION_FULL=1` sweeps every byte (Tests/Scripts/kill-sweep.sh);
/// `STRATA_CORRUPTION_SAMPLING` sets the share of offsets sampled; `STRATA_CORRUPTION_SEED`
/// replays a sample.
final class CorruptionSweepTests: XCTestCase {
    private var directory: URL!
    private var digests: [UInt64] = []
    private var runner: SweepRunner!
    private var seed: UInt64 = 0
    private var sampling = 1.0

    override func setUpWithError() throws {
        let environment = ProcessInfo.processInfo.environment
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("strata-sweep-\(UUID().uuidString)")
        let pristine = directory.appendingPathComponent("pristine")
        digests = try SweepFixture.build(in: pristine)
        runner = try SweepRunner(pristine: pristine, scratch: directory.appendingPathComponent("case"))
        seed = environment["STRATA_CORRUPTION_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 0...UInt64.max)
        sampling = environment["STRATA_CORRUPTION_FULL"] == "1"
            ? 1 : environment["STRATA_CORRUPTION_SAMPLING"].flatMap(Double.init) ?? quickSampling
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    /// The share of offsets the quick sweep of `swift test` damages.
    private let quickSampling = 0.005

    private var sizes: String {
        runner.files.keys.sorted().map { "\($0) \(runner.files[$0]!.count)" }.joined(separator: ", ")
    }

    func testRecomputedChecksumsOfUndamagedFilesAreTheStoredOnes() {
        for (name, bytes) in runner.files {
            for offset in stride(from: 0, to: bytes.count, by: 7) {
                let unchanged = SweepDamage(file: name, offset: offset, change: .flipBit(0), recomputesChecksum: true)
                let twice = SweepDamage(file: name, offset: offset, change: .flipBit(0), recomputesChecksum: true)
                    .applied(to: unchanged.applied(to: bytes))
                XCTAssertEqual(twice, bytes, "\(name) at \(offset): a checksum recomputed over the original bytes differs")
            }
        }
    }

    /// A sealed log segment or a compacted segment cut right before one of its records is
    /// left a run of whole records; recovery must see that it is short (it was synced whole
    /// before the next segment was made) and refuse it, instead of applying the segments after
    /// it over a hole. Fails today (the database opens with data of no commit, and reads of a
    /// link to a lost object report damage); set STRATA_KNOWN_BUGS=1 to run it.
    func testSealedSegmentCutWhereARecordStartsIsCorruption() throws {
        try XCTSkipUnless(ProcessInfo.processInfo.environment["STRATA_KNOWN_BUGS"] == "1", "known bug: sealed segment cut at a record")
        for name in runner.files.keys.sorted() where name.hasSuffix(".seg") && name != runner.newestSegment {
            let starts = SweepChecksums.segmentSpans(runner.files[name]!).dropFirst().map(\.crcOffset)
            guard starts.count > 2 else { continue }
            let cut = SweepDamage(file: name, offset: starts[starts.count / 2], change: .truncate, recomputesChecksum: false)
            let outcome = try runner.run(cut)
            for open in [outcome.readOnly, outcome.readWrite] {
                guard case .failed("corruption", name?, _?) = open else {
                    return XCTFail("\(cut): \(open); expected corruption naming \(name) and an offset")
                }
            }
        }
    }

    private func sweep(recompute: Bool) throws -> (cases: [SweepDamage], run: CorruptionReaderRun) {
        let cases = runner.cases(recomputingChecksums: recompute, sampling: sampling, seed: seed)
        let mode = recompute ? "recomputed checksums" : "intact checksums"
        print("CorruptionSweepTests: \(mode), seed \(seed), sampling \(sampling), \(cases.count) cases; files: \(sizes)")
        let run = try CorruptionReaderRun(
            pristine: directory.appendingPathComponent("pristine"), scratch: directory.appendingPathComponent("case"),
            recompute: recompute, sampling: sampling, seed: seed, count: cases.count)
        for index in run.trapped { print("CorruptionSweepTests: \(mode): case \(index) trapped: \(cases[index])") }
        return (cases, run)
    }

    func testDamageUnderIntactChecksumsGivesAPrefixOrCorruptionNamingTheFile() throws {
        let (cases, run) = try sweep(recompute: false)
        var tally = CorruptionTally()
        for (index, damage) in cases.enumerated() {
            guard let outcome = run.outcomes[index] else { continue }
            if runner.cutsASealedSegmentAtARecord(damage) {
                tally.knownBug.append(damage.description)
                continue
            }
            if let problem = tally.checkIntact(outcome, of: damage, digests: digests) {
                XCTFail("seed \(seed), case \(index): \(problem)")
            }
        }
        tally.trapped = run.trapped
        print("CorruptionSweepTests: intact checksums: \(tally)")
        XCTAssertEqual(
            run.trapped.filter { !runner.cutsASealedSegmentAtARecord(cases[$0]) }.map { cases[$0].description }, [],
            "seed \(seed): these cases trapped")
        XCTAssertGreaterThan(tally.refused["corruption", default: 0], 0, "no case was refused: the sweep damaged nothing")
    }

    func testDamageUnderRecomputedChecksumsIsReadOrReportedNeverATrap() throws {
        let (cases, run) = try sweep(recompute: true)
        var tally = CorruptionTally()
        for (index, damage) in cases.enumerated() {
            guard let outcome = run.outcomes[index] else { continue }
            if let problem = tally.checkRecomputed(outcome, of: damage, digests: digests) {
                XCTFail("seed \(seed), case \(index): \(problem)")
            }
        }
        tally.trapped = run.trapped
        print("CorruptionSweepTests: recomputed checksums: \(tally)")
        XCTAssertEqual(run.trapped.map { cases[$0].description }, [], "seed \(seed): these cases trapped")
    }
}
