import Foundation
import Strata
@_spi(Testing) import StrataStorage

/// Runs corruption cases: each on a fresh copy of the fixture in a scratch directory, opened
/// read-only, then read-write, reading every object and property each time.
///
/// Not thread-safe (one scratch directory); use one runner per thread.
public struct SweepRunner {
    /// The fixture's files (not `LOCK`), by name.
    public let files: [String: [UInt8]]
    public let scratch: URL

    /// Reads the fixture in `pristine`; cases run in `scratch` (replaced by each case).
    /// - Throws: when a file cannot be read.
    public init(pristine: URL, scratch: URL) throws {
        var files: [String: [UInt8]] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: pristine.path) where name != "LOCK" {
            files[name] = Array(try Data(contentsOf: pristine.appendingPathComponent(name)))
        }
        self.files = files
        self.scratch = scratch
    }

    /// The name of the newest segment: the last one the MANIFEST lists.
    public var newestSegment: String {
        let manifest = files["MANIFEST"] ?? []
        guard manifest.count >= 32 else { return "" }
        let number = (0..<4).reduce(0) { $0 | Int(manifest[manifest.count - 8 + $1]) << (8 * $1) }
        return String(repeating: "0", count: max(0, 6 - String(number).count)) + "\(number).seg"
    }

    /// The cases of a sweep: for each file (name order) and each chosen offset, the byte
    /// inverted, one bit of it flipped and the byte zeroed; without recomputed checksums also
    /// the file cut there. With recomputed checksums, bytes of checksums are left out.
    /// `sampling` is the share of offsets chosen (1: all), drawn from `seed`.
    public func cases(recomputingChecksums recompute: Bool, sampling: Double, seed: UInt64) -> [SweepDamage] {
        var random = SplitMix64(seed: seed)
        var cases: [SweepDamage] = []
        for name in files.keys.sorted() {
            let bytes = files[name]!
            for offset in bytes.indices {
                let bit = Int(random.next() % 8)
                guard sampling >= 1 || Double(random.next() % 1_000_000) < sampling * 1_000_000 else { continue }
                if recompute, SweepChecksums.span(covering: offset, in: bytes, file: name) == nil { continue }
                var changes: [SweepDamage.Change] = [.invert, .flipBit(bit), .zero]
                if !recompute { changes.append(.truncate) }
                for change in changes {
                    cases.append(SweepDamage(file: name, offset: offset, change: change, recomputesChecksum: recompute))
                }
            }
        }
        return cases
    }

    /// Runs one case.
    /// - Throws: when the scratch copy cannot be written.
    public func run(_ damage: SweepDamage) throws -> SweepOutcome {
        try? FileManager.default.removeItem(at: scratch)
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        for (name, bytes) in files {
            let contents = name == damage.file ? damage.applied(to: bytes) : bytes
            try Data(contents).write(to: scratch.appendingPathComponent(name))
        }
        let readOnly = open(readOnly: true)
        let readWrite = open(readOnly: false)
        return SweepOutcome(readOnly: readOnly, readWrite: readWrite)
    }

    private func open(readOnly: Bool) -> SweepOutcome.Open {
        do {
            let db = try SweepFixture.open(scratch, readOnly: readOnly)
            return .opened(digest: SweepRender.digest(db), readFailure: SweepRender.readFailure(db))
        } catch let error as StrataError {
            return .failed(code: error.code.name, file: error.file.map { URL(fileURLWithPath: $0).lastPathComponent }, offset: error.offset)
        } catch {
            return .failedOther("\(error)")
        }
    }
}
