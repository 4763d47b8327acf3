// Inputs that trip issues already reported against StrataStorage (each has inputs under
// Regressions/, described in Regressions/README.md). With STRATA_FUZZ_SKIP_KNOWN=1 the fuzz
// targets skip such inputs (returning -1, so libFuzzer does not keep them), and a long session
// can look for new problems while the reported ones wait for a fix. Delete a check once its
// issue is fixed: its regression inputs must then run clean without it.
//
// The checks over-approximate (they skip a few inputs that would not trip the issue); they must
// never under-approximate, or a skipped session stops at the known crash again.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

public enum KnownIssues {
    /// Whether STRATA_FUZZ_SKIP_KNOWN=1 is set.
    public static let skip: Bool = flag("STRATA_FUZZ_SKIP_KNOWN")

    /// Whether STRATA_FUZZ_VERBOSE=1 is set: the harnesses print what each open did.
    public static let verbose: Bool = flag("STRATA_FUZZ_VERBOSE")

    private static func flag(_ name: String) -> Bool {
        guard let value = getenv(name) else { return false }
        return String(cString: value) == "1"
    }

    /// Sequences this close to UInt64.max trip SEQUENCE-OVERFLOW: `Store.init` computes
    /// `lastSequence + 1` (traps at UInt64.max, in every open mode), `Store.lead` computes
    /// `nextSequence += 1` (traps on the first commit after recovering UInt64.max - 1).
    private static let sequenceLimit = UInt64.max - 1

    /// Whether a segment input would trip a known issue: SEQUENCE-OVERFLOW, by a record on the
    /// length chain (committed or not: over-approximation) carrying a sequence ≥ UInt64.max - 1.
    public static func segmentTripsKnownIssue(_ segment: [UInt8]) -> Bool {
        var offset = Layout.segmentHeaderSize
        while offset + Layout.recordHeaderSize <= segment.count {
            let end = offset + Layout.recordHeaderSize + Int(segment.loadLE(at: offset + 4, as: UInt32.self))
            guard end <= segment.count else { break }
            if segment.loadLE(at: offset + 10, as: UInt64.self) >= sequenceLimit { return true }
            offset = end
        }
        return false
    }

    /// Whether a manifest input would trip a known issue:
    /// - EMPTY-MANIFEST: a segment count of 0 (read-write open deletes every segment, then
    ///   refuses every commit with `.readOnly`);
    /// - SEQUENCE-OVERFLOW: a last sequence ≥ UInt64.max - 1;
    /// - SEGMENT-NUMBER-OVERFLOW: segment UInt32.max listed (`Store.roll` computes
    ///   `active.number + 1`).
    public static func manifestTripsKnownIssue(_ manifest: [UInt8]) -> Bool {
        if manifest.count >= 16, manifest.loadLE(at: 12, as: UInt32.self) == 0 { return true }
        if manifest.count >= 24, manifest.loadLE(at: 16, as: UInt64.self) >= sequenceLimit { return true }
        var offset = 24
        while offset + 4 <= manifest.count {
            if manifest.loadLE(at: offset, as: UInt32.self) == UInt32.max { return true }
            offset += 4
        }
        return false
    }
}
