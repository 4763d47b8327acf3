// What the EvaluatorFuzzer checks for one input (see EvaluatorFuzzerTarget.swift): the objects
// `filter(checking:)` matches, on the class and on a collection, against the oracle's.

import Strata

/// Why a check ends without a finding.
enum EvalStop: Error {
    /// The warm-up judges nothing: where a check would trap, it stops.
    case warmUp
    /// The mismatch is an open issue's (KnownIssues), skipped with STRATA_FUZZ_SKIP_KNOWN=1.
    case knownIssue
}

struct EvalCheck {
    let evalCase: EvalCase
    let database: EvalDatabase
    let text: String
    let arguments: [Any]
    /// The predicate and its arguments, for messages.
    let context: String
    let verbose: Bool
    let checking: Bool

    var graph: EvalGraph { evalCase.graph }

    func fail(_ message: String) throws -> Never {
        guard checking else { throw EvalStop.warmUp }
        fatalError("EvaluatorFuzzer: \(message)\n  predicate \(context)\n  objects:\n\(graph.description)")
    }

    func run() throws {
        let predicate = evalCase.predicate
        func dogNames(_ indexes: [Int]) -> (EvalOracle) -> [[UInt8]] {
            { oracle in indexes.filter { oracle.matches(predicate, .dog($0)) }.map { Array(graph.dogs[$0].name.utf8) } }
        }
        func personNames(_ indexes: [Int]) -> (EvalOracle) -> [[UInt8]] {
            { oracle in indexes.filter { oracle.matches(predicate, .person($0)) }.map { Array(graph.persons[$0].name.utf8) } }
        }
        switch evalCase.root {
        case .dog:
            try compare("objects(EvalDog.self)", database.db.objects(EvalDog.self).filter(checking:_:), key: \.name,
                        expected: dogNames(Array(graph.dogs.indices)), ordered: false)
            if let owner = evalCase.collectionOwner {
                // A list's results keep its order and its duplicates.
                try compare("person \(owner).dogs", database.person(owner).dogs.filter(checking:_:), key: \.name,
                            expected: dogNames(graph.persons[owner].dogs), ordered: true)
            }
        case .person:
            try compare("objects(EvalPerson.self)", database.db.objects(EvalPerson.self).filter(checking:_:), key: \.name,
                        expected: personNames(Array(graph.persons.indices)), ordered: false)
            if let owner = evalCase.collectionOwner {
                try compare("dog \(owner).owners", database.dog(owner).owners.filter(checking:_:), key: \.name,
                            expected: personNames(graph.owners(ofDog: owner)), ordered: false)
            }
        }
        if let failure = database.db.readFailure { try fail("a read found damage: \(failure)") }
    }

    /// Runs `filter` with the predicate; what it matches (primary keys as UTF-8 bytes) must be
    /// what `expected` computes with the oracle, in its order when `ordered`, else as a set
    /// without repeats.
    private func compare<T: Object>(
        _ what: String, _ filter: (String, Any...) throws -> Results<T>, key: (T) -> String,
        expected: (EvalOracle) -> [[UInt8]], ordered: Bool
    ) throws {
        let found: Results<T>
        do {
            found = try passing(arguments, to: filter, text)
        } catch let error as StrataError {
            try fail("\(what).filter(checking:) threw \(error.code.name) for a predicate of the grammar: \(error.message)")
        } catch {
            try fail("\(what).filter(checking:) threw a non-StrataError: \(type(of: error)) \(error)")
        }
        let count = found.count
        let got = found.map { Array(key($0).utf8) }
        if got.count != count { try fail("\(what): count is \(count) but iteration yields \(got.count)") }
        if !ordered, Set(got).count != got.count { try fail("\(what): an object appears twice in \(shown(got))") }
        func agrees(_ keys: [[UInt8]]) -> Bool { ordered ? got == keys : Set(got) == Set(keys) }
        let wanted = expected(EvalOracle(graph: graph))
        if verbose { note("  \(what): \(got.count) match\(agrees(wanted) ? "" : ", the oracle expects \(wanted.count)")") }
        if agrees(wanted) { return }
        if KnownIssues.skip || !checking, KnownIssues.evaluatorStringOperatorsAreCanonical,
           agrees(expected(EvalOracle(graph: graph, rules: .canonical))) {
            throw EvalStop.knownIssue
        }
        try fail("\(what) matches \(shown(got))\(ordered ? " (in this order)" : ""), the oracle expects \(shown(wanted))")
    }

    private func shown(_ keys: [[UInt8]]) -> String {
        "[" + keys.map { EvalLiteral.shown(String(decoding: $0, as: UTF8.self)) }.joined(separator: ", ") + "]"
    }
}
