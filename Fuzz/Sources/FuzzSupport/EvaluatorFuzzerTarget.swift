// The EvaluatorFuzzer target: Strata's query evaluation (and the parser in front of it) against
// a brute-force oracle. An input decodes, never rejected, into a small object graph of EvalDogs
// and EvalPersons (EvaluatorFuzzerGraph.swift) and a predicate of a grammar of key paths through
// links, lists, sets, maps, embedded objects and backlinks, quantifiers, aggregates, SUBQUERY,
// IN, BETWEEN and the string operators with [c]/[d] (EvaluatorFuzzerGenerator*.swift). The
// predicate is rendered as text with `%@`/`%K` arguments or literals
// (EvaluatorFuzzerRender.swift) and run with `db.objects(Class.self).filter(checking:…)`; the
// oracle (EvaluatorFuzzerOracle*.swift) evaluates it over the plain values.
//
// Input: the graph (see EvaluatorFuzzerGraph.swift), then a query byte (bit 0: clear queries
// EvalPerson, set EvalDog; bit 1: also query a collection: for EvalDog the `dogs` list of a
// person, for EvalPerson the `owners` of a dog), an owner byte (which one), then the predicate's
// bytes (EvaluatorFuzzerGenerator.swift).
//
// Each input gets a new Database on a new MemoryFileSystem (durability .none; see
// EvaluatorFuzzerFileSystem.swift). Findings (traps), checked by EvaluatorFuzzerTarget+Check.swift:
// - the objects matched differ from the oracle's (by primary key, compared as UTF-8 bytes);
//   for a list the matches must also keep the list's order and duplicates;
// - `filter(checking:)` throws: any error, `.invalidQuery` included, since the grammar only
//   makes predicates Strata documents as valid;
// - `count` differs from what iteration yields, an object comes twice, a read finds damage, or
//   the Database outlives its input.
//
// Seeds: Corpus/EvaluatorFuzzer, written by Tools/MakeSeeds.

import Foundation
@_spi(Testing) import Strata
@_spi(Testing) import StrataStorage

/// One decoded input.
public struct EvalCase: Sendable {
    public var graph: EvalGraph
    public var root: EvalClass
    public var predicate: EvalPredicate
    /// The person (for EvalDog) or dog (for EvalPerson) whose collection is queried too.
    public var collectionOwner: Int?

    public init(_ input: [UInt8]) {
        var reader = OpsByteReader(bytes: input)
        graph = EvalGraph(&reader)
        let query = reader.next()
        root = query & 1 == 0 ? .person : .dog
        let owner = reader.next()
        collectionOwner = query & 2 == 0 ? nil : owner % (root == .dog ? graph.persons.count : graph.dogs.count)
        var generator = EvalGenerator(reader: reader, graph: graph)
        predicate = generator.predicate(on: root)
    }
}

/// Runs one EvaluatorFuzzer input. Traps on a finding. Returns -1 (do not add to the corpus) for
/// inputs skipped as known issues, else 0.
public func runEvaluatorInput(_ input: [UInt8]) -> CInt {
    EvalWarmUp.done()
    let evalCase = EvalCase(input)
    return runEvaluatorCase(evalCase, verbose: KnownIssues.verbose)
}

/// What an input decodes to, without a database (for MakeSeeds): the predicate as text (its
/// arguments as `%@`/`%K`), and how many objects of the queried class the oracle matches of
/// how many there are.
public func previewEvaluatorInput(_ input: [UInt8]) -> (predicate: String, matched: Int, total: Int) {
    let evalCase = EvalCase(input)
    var renderer = EvalRenderer(object: { _ in NSNull() })
    let text = renderer.predicate(evalCase.predicate)
    let oracle = EvalOracle(graph: evalCase.graph)
    let objects: [EvalItem] = evalCase.root == .dog
        ? evalCase.graph.dogs.indices.map(EvalItem.dog) : evalCase.graph.persons.indices.map(EvalItem.person)
    return (text, objects.filter { oracle.matches(evalCase.predicate, $0) }.count, objects.count)
}

/// Runs one case; with `checking` false (the warm-up) it only runs the queries, judging nothing.
/// Afterwards the case's Database must be gone (the next case's, registered under the same
/// name, must not find its store).
func runEvaluatorCase(_ evalCase: EvalCase, verbose: Bool, checking: Bool = true) -> CInt {
    let opened = EvalWeakDatabase()
    let result = evaluate(evalCase, verbose: verbose, checking: checking, opened: opened)
    if opened.database != nil { fatalError("EvaluatorFuzzer: the Database outlived its input; the next would reuse its store") }
    return result
}

final class EvalWeakDatabase {
    weak var database: Database?
}

private func evaluate(_ evalCase: EvalCase, verbose: Bool, checking: Bool, opened: EvalWeakDatabase) -> CInt {
    let database = EvalDatabase(evalCase.graph)
    opened.database = database.db
    var renderer = EvalRenderer(object: database.object)
    let text = renderer.predicate(evalCase.predicate)
    let context = "\(EvalLiteral.shown(text)) on \(evalCase.root.className), arguments [\(renderer.shown.joined(separator: ", "))]"
    if verbose { note("  predicate \(context)") }
    if KnownIssues.skip || !checking, KnownIssues.evaluatorTripsKnownIssue(text) {
        if verbose { note("  skipped: known issue") }
        return -1
    }
    let check = EvalCheck(
        evalCase: evalCase, database: database, text: text, arguments: renderer.arguments, context: context,
        verbose: verbose, checking: checking)
    do {
        try check.run()
    } catch EvalStop.knownIssue {
        if verbose { note("  skipped: known issue") }
        return -1
    } catch {
        // The warm-up stops so (EvalCheck.fail traps when checking).
    }
    return 0
}

/// `filter(text, arguments…)` for up to `EvalGenerator.maxArguments` arguments.
func passing<R>(_ arguments: [Any], to filter: (String, Any...) throws -> R, _ text: String) throws -> R {
    let a = arguments
    switch a.count {
    case 0: return try filter(text)
    case 1: return try filter(text, a[0])
    case 2: return try filter(text, a[0], a[1])
    case 3: return try filter(text, a[0], a[1], a[2])
    case 4: return try filter(text, a[0], a[1], a[2], a[3])
    case 5: return try filter(text, a[0], a[1], a[2], a[3], a[4])
    case 6: return try filter(text, a[0], a[1], a[2], a[3], a[4], a[5])
    case 7: return try filter(text, a[0], a[1], a[2], a[3], a[4], a[5], a[6])
    case 8: return try filter(text, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7])
    case 9: return try filter(text, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8])
    case 10: return try filter(text, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7], a[8], a[9])
    default: fatalError("EvaluatorFuzzer: \(a.count) arguments; the generator makes at most \(EvalGenerator.maxArguments)")
    }
}

/// The database of one input: a new Database holding the graph, in `fuzzDirectory` of a new
/// MemoryFileSystem (seen through `EvalFileSystem`).
final class EvalDatabase {
    let db: Database
    private var dogs: [EvalDog] = []
    private var persons: [EvalPerson] = []

    init(_ graph: EvalGraph) {
        var configuration = Database.Configuration(
            directory: URL(fileURLWithPath: fuzzDirectory), objectTypes: [EvalDog.self, EvalPerson.self, EvalAddress.self],
            durability: .none)
        configuration.storageOptions.fileSystem = EvalFileSystem(base: MemoryFileSystem())
        do {
            db = try Database(configuration: configuration)
            try db.write {
                for value in graph.dogs {
                    let dog = EvalDog()
                    (dog.name, dog.age, dog.weight) = (value.name, value.age, value.weight)
                    try db.add(dog)
                    dogs.append(dog)
                }
                for value in graph.persons {
                    let person = EvalPerson()
                    person.name = value.name
                    person.dog = value.dog.map { dogs[$0] }
                    person.dogs.append(objectsIn: value.dogs.map { dogs[$0] })
                    for tag in value.tags { person.tags.insert(tag) }
                    for (key, score) in value.scores { person.scores[key] = score }
                    if let city = value.city {
                        let address = EvalAddress()
                        address.city = city
                        person.address = address
                    }
                    try db.add(person)
                    persons.append(person)
                }
            }
        } catch {
            fatalError("EvaluatorFuzzer: writing the objects failed: \(error)")
        }
    }

    func dog(_ index: Int) -> EvalDog { dogs[index] }
    func person(_ index: Int) -> EvalPerson { persons[index] }

    /// The stored object a link constant names.
    func object(_ constant: EvalValue) -> Any {
        switch constant {
        case .dog(let index): return dogs[index]
        case .person(let index): return persons[index]
        default: fatalError("EvaluatorFuzzer: \(constant) is not an object")
        }
    }
}

/// Model classes are reflected once per process and cached; that happens with LeakSanitizer
/// paused (see `withLeakCheckingDisabled`), on 64 pseudo-random inputs run without judging.
enum EvalWarmUp {
    static let ran: Bool = {
        withLeakCheckingDisabled {
            for seed in 0..<64 {
                var state = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15
                let bytes = (0..<256).map { _ -> UInt8 in
                    state = state &* 6364136223846793005 &+ 1442695040888963407
                    return UInt8(truncatingIfNeeded: state >> 56)
                }
                _ = runEvaluatorCase(EvalCase(bytes), verbose: false, checking: false)
            }
        }
        return true
    }()

    static func done() { _ = ran }
}
