import Foundation
import StrataCorruptionSweep

/// The checks of the corruption sweep and their tally: what each case's opens gave.
struct CorruptionTally: CustomStringConvertible {
    var cases = 0
    /// The whole fixture came back (the damage did not matter, e.g. a zero written over a zero).
    var whole = 0
    /// A shorter prefix of the commits came back (a torn-looking tail was cut).
    var prefix = 0
    /// An open threw, by error code.
    var refused: [String: Int] = [:]
    /// An open read data of no commit of the fixture and reported the damage (`readFailure`).
    var reported = 0
    /// An open read data of no commit of the fixture and reported nothing.
    var silentlyWrong = 0
    /// Cases of the known bug that were not checked (a sealed segment cut where a record starts).
    var knownBug: [String] = []
    /// Cases that trapped (recomputed checksums, run in the reader process).
    var trapped: [Int] = []

    var description: String {
        let codes = refused.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        return "\(cases) cases: opens that read the whole fixture \(whole), a shorter prefix \(prefix), "
            + "refused [\(codes)], wrong data reported \(reported), wrong data unreported \(silentlyWrong), "
            + "traps \(trapped.count), known bug (sealed segment cut at a record, not checked) \(knownBug.count)"
    }

    /// Counts `outcome` and says what breaks the rules for a case with intact checksums: each
    /// open gives a prefix of the commits (the same for both opens) or `.corruption` naming the
    /// damaged file and an offset.
    mutating func checkIntact(_ outcome: SweepOutcome, of damage: SweepDamage, digests: [UInt64]) -> String? {
        cases += 1
        for open in [outcome.readOnly, outcome.readWrite] {
            count(open, digests: digests)
            switch open {
            case .opened(let digest, let failure):
                if !digests.contains(digest) { return "\(damage): the database opened with data of no commit" }
                if let failure { return "\(damage): reads reported damage (\(failure)) though every checksum matched" }
            case .failed(let code, let file, let offset):
                guard code == "corruption", file == damage.file, offset != nil else {
                    return "\(damage): refused with \(code) naming \(file ?? "no file") at \(offset.map(String.init) ?? "no offset")"
                }
            case .failedOther(let text): return "\(damage): threw a non-StrataError: \(text)"
            }
        }
        if case .opened(let first, _) = outcome.readOnly, case .opened(let second, _) = outcome.readWrite, first != second {
            return "\(damage): read-only and read-write opens recovered different commits"
        }
        return nil
    }

    /// Counts `outcome` and says what breaks the rules for a case with recomputed checksums:
    /// only `StrataError`s are thrown.
    mutating func checkRecomputed(_ outcome: SweepOutcome, of damage: SweepDamage, digests: [UInt64]) -> String? {
        cases += 1
        for open in [outcome.readOnly, outcome.readWrite] {
            count(open, digests: digests)
            if case .failedOther(let text) = open { return "\(damage): threw a non-StrataError: \(text)" }
        }
        return nil
    }

    private mutating func count(_ open: SweepOutcome.Open, digests: [UInt64]) {
        switch open {
        case .opened(let digest, let failure):
            if digest == digests.last { whole += 1 }
            else if digests.contains(digest) { prefix += 1 }
            else if failure != nil { reported += 1 }
            else { silentlyWrong += 1 }
        case .failed(let code, _, _): refused[code, default: 0] += 1
        case .failedOther: refused["other", default: 0] += 1
        }
    }
}
