// The model classes of the EvaluatorFuzzer target and the pools its input bytes pick values
// from. Pools are small so that equalities hit; strings hold case and accent variants, some
// spelled two ways (precomposed "é" and decomposed "e\u{301}", different values to Strata as to
// Realm), so that `[c]`, `[d]` and the string operators have something to tell apart. Numbers
// are small integers and binary fractions: sums and averages are exact in any order.

import Foundation
import Strata

/// A dog: the element of `EvalPerson.dogs` and the target of `EvalPerson.dog`.
public final class EvalDog: Object {
    @Persisted(primaryKey: true) public var name: String
    @Persisted(indexed: true) public var age: Int
    @Persisted public var weight: Double?
    @Persisted(originProperty: "dogs") public var owners: LinkingObjects<EvalPerson>
}

/// A person's embedded address.
public final class EvalAddress: EmbeddedObject {
    @Persisted public var city: String
}

/// A person: a to-one link, a list of links, a set, a map and an embedded object.
public final class EvalPerson: Object {
    @Persisted(primaryKey: true) public var name: String
    @Persisted public var dog: EvalDog?
    @Persisted public var dogs: List<EvalDog>
    @Persisted public var tags: MutableSet<String>
    @Persisted public var scores: Map<String, Int>
    @Persisted public var address: EvalAddress?
}

/// What the input bytes choose from (a byte modulo the pool's size).
public enum EvalPools {
    /// Dog names (primary keys; an input takes each at most once).
    public static let dogNames: [String] = [
        "Rex", "rex", "Fido", "Rover", "Bella", "Zo\u{E9}", "Zoe\u{301}", "ZO\u{C9}",
        "", "Max", "a*b", "it's", "\u{C9}mile", "rover", "e\u{301}", "\u{E9}",
    ]
    /// Person names (primary keys); a few are dog names too, for `name == dog.name`.
    public static let personNames: [String] = [
        "Ann", "ann", "Bob", "Cy", "Dee", "Zo\u{E9}", "Zoe\u{301}", "\u{C9}VA",
        "Eva", "", "Rex", "x", "\u{DC}nal", "unal", "O'Neil", "\u{DF}",
    ]
    public static let ages: [Int] = [0, 1, 2, 3, 3, 5, 7, 10, -3, 2]
    /// `nil` is a dog without a weight.
    public static let weights: [Double?] = [nil, 0.5, 2.25, 3, 3, -1.5, 7.75, 10, 0, nil, 2.5]
    /// Tags of a person: a byte is a mask over these eight.
    public static let tags: [String] = ["a", "A", "b", "\u{E9}", "e\u{301}", "E", "", "x*y"]
    public static let scoreKeys: [String] = ["a", "b", "A", "\u{E9}", "e\u{301}"]
    public static let scoreValues: [Int] = [0, 1, 3, 5, -2, 10]
    public static let cities: [String] = [
        "Lyon", "lyon", "LYON", "Paris", "Orl\u{E9}ans", "Orle\u{301}ans", "", "Z\u{FC}rich", "zurich",
    ]

    /// Strings predicates compare with: the stored ones and parts of them.
    public static let strings: [String] = dogNames + personNames + tags + cities + [
        "R", "r", "e", "E", "o", "Zo", "ZO", "ver", "zoe", "Orle", "ans", "\u{FC}", "u",
        "\u{301}", "\u{E9}a", "LY", "on", "zz",
    ]
    public static let ints: [Int] = [0, 1, 2, 3, 5, 7, 10, -3, 4, 100, -1, 6]
    public static let doubles: [Double] = [2.5, 3, 0.5, -1.5, 7.75, 2.25, 10, 4.5, 1e9, 0, 3.5]
    /// Map keys key paths use (`scores['zz']` is never stored).
    public static let mapKeys: [String] = scoreKeys + ["zz"]
}
