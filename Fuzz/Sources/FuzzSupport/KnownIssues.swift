// Inputs that trip issues already reported against StrataStorage (each has inputs under
// Regressions/, described in Regressions/README.md). With STRATA_FUZZ_SKIP_KNOWN=1 the fuzz
// targets skip such inputs (returning -1, so libFuzzer does not keep them), and a long session
// can look for new problems while the reported ones wait for a fix. Delete a check once its
// issue is fixed: its regression inputs must then run clean without it.
//
// The checks over-approximate (they skip a few inputs that would not trip the issue); they must
// never under-approximate, or a skipped session stops at the known crash again.

import Foundation
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

    // Every issue reported so far is fixed (see Regressions/README.md); their regression inputs
    // run clean. Add a check here, with its regression input, when a new one must wait.

    /// Whether a SegmentFuzzer input would trip an open issue. None is open.
    public static func segmentTripsKnownIssue(_ segment: [UInt8]) -> Bool { false }

    /// Whether a ManifestFuzzer input would trip an open issue. None is open.
    public static func manifestTripsKnownIssue(_ manifest: [UInt8]) -> Bool { false }

    /// Whether a PredicateFuzzer input would trip an open issue. None is open.
    public static func predicateTripsKnownIssue(_ text: String, arguments: [Any]) -> Bool { false }

    /// Whether an OpsFuzzer run would trip an open issue. None is open.
    public static func opsTripsKnownIssue(_ steps: [OpsStep]) -> Bool { false }

    /// Whether an EvaluatorFuzzer predicate would trip an open issue. None is open
    /// (QUOTE-COMBINING-MARK is fixed: the lexer reads Unicode scalars).
    public static func evaluatorTripsKnownIssue(_ text: String) -> Bool { false }

    /// STRING-OPERATORS-CANONICAL is fixed (string operators compare UTF-8 bytes and scalars):
    /// a mismatch is always a finding. While true, the EvaluatorFuzzer would call a mismatch
    /// this issue's when evaluating the predicate with canonical equivalence
    /// (`EvalStringRules.canonical`) gives exactly Strata's result, and skip the input.
    public static let evaluatorStringOperatorsAreCanonical = false
}
