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

    /// Whether an EvaluatorFuzzer predicate would trip an open issue.
    ///
    /// QUOTE-COMBINING-MARK (Regressions/README.md): `PredicateLexer` reads the text as
    /// Characters, so a string literal whose first scalar is a combining mark (`'\u{301}'`
    /// written as is) makes its opening quote and the mark one grapheme cluster; the quote is
    /// not seen and a valid predicate is refused (`.invalidQuery`, "unexpected character").
    /// Over-approximated as: a Character of the text that starts with a quote and has more
    /// scalars.
    ///
    /// STRING-OPERATORS-CANONICAL is recognized by its result instead (see
    /// `evaluatorStringOperatorsAreCanonical`).
    public static func evaluatorTripsKnownIssue(_ text: String) -> Bool {
        text.contains { character in
            character.unicodeScalars.count > 1 && (character.unicodeScalars.first == "'" || character.unicodeScalars.first == "\"")
        }
    }

    /// STRING-OPERATORS-CANONICAL (Regressions/README.md): under `[c]`/`[d]`, Strata compares
    /// the folded strings with Swift's `==` (canonical equivalence: "zo\u{E9}" equals
    /// "zoe\u{301}"), and BEGINSWITH, ENDSWITH, CONTAINS and LIKE work on Characters ("Zoe\u{301}"
    /// does not begin with "Zoe"; LIKE's `?` takes "e\u{301}" whole), where `==` without options,
    /// the primary key and the indexes compare UTF-8 bytes (as Realm's string operators do).
    /// While true, the EvaluatorFuzzer calls a mismatch this issue's when evaluating
    /// the predicate with those rules (`EvalStringRules.canonical`) gives exactly Strata's
    /// result, and skips the input.
    public static let evaluatorStringOperatorsAreCanonical = true
}
