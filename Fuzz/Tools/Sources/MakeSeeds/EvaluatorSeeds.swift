// EvaluatorFuzzer seeds: one hand-spelled object graph (the input format of
// FuzzSupport/EvaluatorFuzzerGraph.swift) followed by predicate bytes found by a seeded search:
// for each feature, the first of a fixed sequence of random tails whose predicate uses the
// feature, matches some but not all objects, and trips no known issue. The search is deterministic, so the seeds only
// change when the grammar or the graph does.

@_spi(Testing) import StrataStorage
import FuzzSupport

/// Six dogs and five persons: accents spelled both ways, a nil link, a list with a repeated
/// dog, a person without an address, maps with both "é"s.
let evaluatorGraph: [UInt8] = [
    5, 4,                                   // 6 dogs, 5 persons
    0, 5, 1,                                // "Rex", age 5, weight 0.5
    2, 2, 0,                                // "Fido", age 2, no weight
    3, 7, 6,                                // "Rover", age 10, weight 7.75
    6, 3, 2,                                // "Zoe\u{301}", age 3, weight 2.25
    5, 1, 3,                                // "Zoé", age 1, weight 3
    14, 8, 10,                              // "e\u{301}", age -3, weight 2.5
    // name, dog (0 nil), dogs (count, indexes), tags mask, scores (count, key, value…), address
    0, 1, 2, 0, 1, 0b0001_1001, 2, 0, 2, 3, 3, 1,     // "Ann": Rex; Rex, Fido; a é e\u{301}; a 3, é 5; Lyon
    2, 0, 1, 2, 0b0000_0010, 1, 1, 5, 5,              // "Bob": no dog; Rover; A; b 10; Orléans
    3, 2, 0, 0, 0, 0,                                 // "Cy": Fido; no dogs, tags, scores, address
    6, 4, 3, 3, 3, 4, 0b0000_0100, 1, 4, 4, 6,        // "Zoe\u{301}": Zoe\u{301}; it twice and Zoé; b; e\u{301} -2; Orle\u{301}ans
    7, 6, 1, 5, 0b0010_0000, 0, 2,                    // "ÉVA": e\u{301}; e\u{301}; E; lyon
]

/// Seed name and a text its predicate must contain.
let evaluatorFeatures: [(String, String)] = [
    ("to-one-link", "dog."), ("quantifier-all", "ALL "), ("average", "@avg"), ("subquery", "SUBQUERY"),
    ("backlinks", "@links"), ("map-key", "scores["), ("between", "BETWEEN"), ("like", "LIKE"),
    ("case-and-diacritics", "[cd]"), ("argument-in-collection", "%@ IN"),
]

let evaluatorSeeds: [(String, [UInt8])] = {
    var random = SplitMix64(seed: 0xE7A1_0A70)
    var seeds: [(String, [UInt8])] = []
    for (name, feature) in evaluatorFeatures {
        for attempt in 0..<200_000 {
            // Query byte: EvalPerson or EvalDog, and a collection query every other time.
            let tail = (0..<(10 + attempt % 40)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let input = evaluatorGraph + tail
            let preview = previewEvaluatorInput(input)
            if preview.predicate.contains(feature), preview.matched > 0, preview.matched < preview.total,
               !KnownIssues.evaluatorTripsKnownIssue(preview.predicate) {
                seeds.append((name, input))
                break
            }
            precondition(attempt < 199_999, "no EvaluatorFuzzer seed found for \(feature)")
        }
    }
    return seeds
}()
