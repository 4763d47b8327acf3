// The PredicateFuzzer target: Strata's NSPredicate-format parser (PredicateLexer,
// PredicateParser) and the query evaluation behind it, reached through the public API
// `Results.filter(checking:_:)`.
//
// Input: one header byte, then N argument selector bytes, then the predicate text.
//
//   header bits 0–1    N, the number of `%@`/`%K` arguments (0–3) passed to filter(checking:).
//   header bit 2       the class queried: clear = FuzzDog (Int, String, Double, Bool, String?,
//                      Date; `name` indexed), set = FuzzThing (Decimal128, Float, Int8, Int16?,
//                      Int64, Data, UUID, ObjectId, Date?, AnyValue, a link, a List, an indexed
//                      Int?; String primary key).
//   other header bits  ignored.
//   selector bytes     each picks an argument from `PredicateFixtures.argumentPool` (byte modulo
//                      the pool's size, 32): Int, String (also property names for %K), Double
//                      (NaN, -infinity), Bool, nil, NSNull, Date, Decimal128, UUID, ObjectId, Data,
//                      Int8, Float, UInt64.max, AnyValue, managed and unmanaged objects, arrays.
//   the rest           the predicate, decoded as UTF-8 (invalid sequences become U+FFFD).
//
// A Database on a temporary directory is opened once per process with 20 FuzzDogs and 8
// FuzzThings; the directory is removed as soon as they are written (the open store reads its
// files through open descriptors and mappings). For each input the harness calls
// `db.objects(Class.self).filter(checking: text, args…)`. Rules:
// - it returns, or throws StrataError with code `.invalidQuery` (its documented contract);
//   any other error, a trap, a hang or a huge allocation is a finding;
// - when it returns, `count` equals the number of objects iteration yields, every object is
//   read in full (materialized, each property read), no object comes twice.
// Oracles, when the predicate P parses (the wrappers add only whitespace-separated tokens, so
// they parse whenever P does, unless P already nests 99 or 100 levels deep):
// - `NOT ( P )` selects exactly the objects P does not (the two partition the class);
// - `FALSEPREDICATE OR ( P )` selects exactly what P does: it hides P's equality terms from
//   the primary-key and secondary-index fast paths (`Results.candidateKeys`), so this compares
//   those paths with a full scan.
//
// Seeds: Corpus/PredicateFuzzer, written by Tools/MakeSeeds.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Foundation
import Strata
import StrataStorage

// MARK: - Model

/// The main class the predicates query.
public final class FuzzDog: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var name: String
    @Persisted var age: Int
    @Persisted var weight: Double
    @Persisted var alive: Bool
    @Persisted var nick: String?
    @Persisted var born: Date
}

/// A class with the other property types the parser converts constants to.
public final class FuzzThing: Object {
    @Persisted(primaryKey: true) var key: String
    @Persisted var price: Decimal128
    @Persisted var ratio: Float
    @Persisted var small: Int8
    @Persisted var medium: Int16?
    @Persisted var large: Int64
    @Persisted var blob: Data
    @Persisted var ref: UUID
    @Persisted var oid: ObjectId
    @Persisted var when: Date?
    @Persisted var mixed: AnyValue
    @Persisted var owner: FuzzDog?
    @Persisted var tags: List<String>
    @Persisted(indexed: true) var code: Int?
}

// MARK: - Fixtures

/// The database the predicates run against, made once per process, and the argument pool.
public final class PredicateFixtures: @unchecked Sendable {
    /// Where the database was made (removed once it is open).
    public let directory: String
    public let database: Database
    /// Primary keys of every object of each class.
    let dogIDs: Set<Int>
    let thingKeys: Set<[UInt8]>
    /// What `%@`/`%K` selector bytes choose from (byte % count).
    public let argumentPool: [Any]

    public static let shared: PredicateFixtures = {
        do {
            return try withLeakCheckingDisabled { try PredicateFixtures() }
        } catch {
            fatalError("predicate fuzz fixtures: \(error)")
        }
    }()

    private init() throws {
        var template = Array((NSTemporaryDirectory() + "/strata-predicate-fuzz.XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fatalError("predicate fuzz fixtures: mkdtemp failed, errno \(errno)")
        }
        directory = String(cString: made)
        let database = try Database(configuration: .init(
            directory: URL(fileURLWithPath: directory), objectTypes: [FuzzDog.self, FuzzThing.self],
            durability: .none))

        let names = ["Rex", "rex", "REX", "Fido", "rover", "Bella", "St*r?", "", "a\\b", "Zo\u{E9}",
                     "Zoe\u{301}", "名前", "🐶", "O'Brien", "with space", "Rex Jr.", "x", "%@", "NaN", "nil"]
        let ages = [3, 7, 2, 10, 0, -1, Int.max, Int.min, 42, 3, 5, 12, 1, 8, 3, 99, -100, 6, 4, 11]
        let weights: [Double] = [12.5, 30, 8.25, 22, 0, -0.0, 1e300, -1e-300, .infinity, 3, .nan,
                                 -.infinity, 0.1, 12.5, 7, 100, 2.5, 1, .leastNonzeroMagnitude, 30]
        let nicks: [String?] = ["fi", nil, "Rov", "bee", "", nil, "REX", "rex", nil, "ë",
                                "e\u{301}", nil, "🐶🐶", "'", nil, "*", "?", nil, "\\", "nil"]
        let seconds: [Double] = [0, 86_400, -86_400, 1e9, 1.5e9, 2e9, -1e10, 1e11, 0.5, 3e8,
                                 4e8, 5e8, 6e8, 7e8, 8e8, 9e8, 1e9 + 0.25, 1e9 + 0.5, 63_113_904_000, -63_113_904_000]
        var dogs: [FuzzDog] = []
        try database.write {
            for index in 0..<20 {
                let dog = FuzzDog()
                dog.id = index
                dog.name = names[index]
                dog.age = ages[index]
                dog.weight = weights[index]
                dog.alive = index % 3 != 0
                dog.nick = nicks[index]
                dog.born = Date(timeIntervalSince1970: seconds[index])
                try database.add(dog)
                dogs.append(dog)
            }
            let prices = ["12.5", "0", "-0.001", "1E+6144", "9999999999999999999999999999999999", "0.1", "-12.50", "NaN"]
            let mixed: [AnyValue] = [.int(3), .string("Rex"), .double(12.5), .none, .bool(true),
                                     .decimal128(try Decimal128(string: "12.5")), .date(Date(timeIntervalSince1970: 0)), .string("")]
            for index in 0..<8 {
                let thing = FuzzThing()
                thing.key = ["a", "b", "Rex", "", "é", "e\u{301}", "10", "*"][index]
                thing.price = Decimal128(prices[index]) ?? .nan
                thing.ratio = [Float(0.1), 12.5, -1, .infinity, 0, 3, .greatestFiniteMagnitude, -0.0][index]
                thing.small = [Int8(-5), 0, 127, -128, 3, 12, 1, -1][index]
                thing.medium = index % 2 == 0 ? Int16(index * 1000 - 3000) : nil
                thing.large = [Int64.max, Int64.min, 0, 3, 12, -1, 1 << 53, (1 << 53) + 1][index]
                thing.blob = Data("blob \(index)".utf8)
                thing.ref = UUID(uuidString: "00000000-0000-0000-0000-" + padded(index, 12, radix: 10))!
                thing.oid = ObjectId(padded(index * 0x1111, 24, radix: 16))!
                thing.when = index % 3 == 0 ? nil : Date(timeIntervalSince1970: seconds[index])
                thing.mixed = mixed[index]
                thing.owner = index % 2 == 0 ? dogs[index] : nil
                thing.tags.append(contentsOf: ["t\(index)", "shared"])
                thing.code = index % 4 == 0 ? nil : index
                try database.add(thing)
            }
        }
        self.database = database
        // The open store keeps its files open (mapped), so the directory can go at once: no
        // process, not even one a finding kills, leaves it behind. The reads below check that
        // the database still reads everything without it.
        try FileManager.default.removeItem(atPath: directory)
        dogIDs = Set(database.objects(FuzzDog.self).map(\.id))
        thingKeys = Set(database.objects(FuzzThing.self).map { Array($0.key.utf8) })
        precondition(dogIDs.count == 20 && thingKeys.count == 8, "predicate fuzz fixtures: objects missing")

        let managedDog = database.objects(FuzzDog.self).filter("id == 3")[0]
        argumentPool = [
            3,                                      // 0
            "Rex",                                  // 1
            12.5,                                   // 2
            true,                                   // 3
            nil as String? as Any,                  // 4
            Date(timeIntervalSince1970: 1e9),       // 5  (dog 3's birth)
            "age",                                  // 6  a property name for %K
            Int.min,                                // 7
            Double.nan,                             // 8
            "",                                     // 9
            false,                                  // 10
            UInt64.max,                             // 11
            [3, 5, 7],                              // 12
            ["Rex", "fi"],                          // 13
            -Double.infinity,                       // 14
            "nick",                                 // 15 an optional property for %K
            try Decimal128(string: "12.5"),         // 16
            UUID(uuidString: "00000000-0000-0000-0000-000000000001")!, // 17 (thing 1's ref)
            ObjectId(padded(0x1111, 24, radix: 16))!,                    // 18 (thing 1's oid)
            Data("blob 2".utf8),                    // 19
            managedDog,                             // 20 a stored object (for `owner`)
            FuzzDog(),                              // 21 an unmanaged object
            Int8(-5),                               // 22
            Float(0.1),                             // 23
            "price",                                // 24 a FuzzThing property for %K
            NSNull(),                               // 25
            AnyValue.int(3),                        // 26
            [1.5, Double.nan],                      // 27
            [1, "Rex", nil as Int? as Any] as [Any], // 28
            "r*",                                   // 29 a LIKE pattern
            Decimal128.nan,                         // 30
            Date.distantFuture,                     // 31
        ]
    }
}

/// Runs `body` with LeakSanitizer disabled (when it is linked in): what `body` allocates is
/// never reported. For the fixtures, which live as long as the process: Swift stores some
/// references as tagged pointers LeakSanitizer does not recognize (the payload boxes of an
/// `indirect enum` with several payload cases, such as `PropertyType.list` in the schema), so
/// it would report them as leaked the first time an input makes libFuzzer check the heap.
func withLeakCheckingDisabled<R>(_ body: () throws -> R) rethrows -> R {
    typealias Toggle = @convention(c) () -> Void
    let program = dlopen(nil, RTLD_NOW)
    let disable = dlsym(program, "__lsan_disable").map { unsafeBitCast($0, to: Toggle.self) }
    let enable = dlsym(program, "__lsan_enable").map { unsafeBitCast($0, to: Toggle.self) }
    disable?()
    defer { enable?() }
    return try body()
}

/// `number` in `radix`, left-padded with zeros to `width` digits.
func padded(_ number: Int, _ width: Int, radix: Int) -> String {
    let digits = String(number, radix: radix)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

// MARK: - Harness

/// Runs one PredicateFuzzer input (header, selectors, text; see the file header). Traps on a
/// bug. Returns -1 (do not add to the corpus) for inputs skipped as known issues, else 0.
public func runPredicateInput(_ input: [UInt8]) -> CInt {
    guard let header = input.first else { return 0 }
    let fixtures = PredicateFixtures.shared
    let count = min(Int(header & 0x03), input.count - 1)
    let arguments = input[1..<(1 + count)].map { fixtures.argumentPool[Int($0) % fixtures.argumentPool.count] }
    let text = String(decoding: input[(1 + count)...], as: UTF8.self)
    if KnownIssues.skip, KnownIssues.predicateTripsKnownIssue(text, arguments: arguments) {
        if KnownIssues.verbose { note("  skipped: known issue") }
        return -1
    }
    if KnownIssues.verbose {
        note("  predicate \(text.debugDescription) on \(header & 0x04 == 0 ? "FuzzDog" : "FuzzThing"), arguments \(arguments.map { String(reflecting: $0) })")
    }
    if header & 0x04 == 0 {
        checkPredicate(fixtures.database.objects(FuzzDog.self), text, arguments, all: fixtures.dogIDs) { dog in
            _ = (dog.name, dog.age, dog.weight, dog.alive, dog.nick, dog.born)
            return dog.id
        }
    } else {
        checkPredicate(fixtures.database.objects(FuzzThing.self), text, arguments, all: fixtures.thingKeys) { thing in
            _ = (thing.price, thing.ratio, thing.small, thing.medium, thing.large, thing.blob, thing.ref, thing.oid)
            _ = (thing.when, thing.mixed, thing.owner?.name, thing.code)
            _ = (thing.tags.count, thing.tags.first)
            // By bytes: Swift's String equality would merge "é" and "e\u{301}", two objects.
            return Array(thing.key.utf8)
        }
    }
    return 0
}

/// `base.filter(checking: text, arguments…)`: the result, or the StrataError it threw
/// (`.invalidQuery`; anything else traps).
func filtered<T: Object>(_ base: Results<T>, _ text: String, _ arguments: [Any]) -> Result<Results<T>, StrataError> {
    do {
        switch arguments.count {
        case 0: return .success(try base.filter(checking: text))
        case 1: return .success(try base.filter(checking: text, arguments[0]))
        case 2: return .success(try base.filter(checking: text, arguments[0], arguments[1]))
        default: return .success(try base.filter(checking: text, arguments[0], arguments[1], arguments[2]))
        }
    } catch let error as StrataError {
        guard error.code == .invalidQuery else {
            fatalError("filter(checking:) threw \(error.code.name), not invalidQuery: \(error) for \(text.debugDescription)")
        }
        return .failure(error)
    } catch {
        fatalError("filter(checking:) threw a non-StrataError: \(type(of: error)) \(error) for \(text.debugDescription)")
    }
}

/// The primary keys of what `results` holds, reading every object in full; checks `count`
/// against iteration and that no object comes twice.
func keys<T: Object, Key: Hashable>(_ results: Results<T>, _ context: String, _ read: (T) -> Key) -> Set<Key> {
    let count = results.count
    var found = Set<Key>()
    var iterated = 0
    for object in results {
        iterated += 1
        let key = read(object)
        guard found.insert(key).inserted else { fatalError("\(context): \(key) appears twice in the results") }
    }
    guard iterated == count else { fatalError("\(context): count is \(count) but iteration yields \(iterated)") }
    return found
}

func checkPredicate<T: Object, Key: Hashable>(
    _ base: Results<T>, _ text: String, _ arguments: [Any], all: Set<Key>, _ read: (T) -> Key
) {
    let results: Results<T>
    switch filtered(base, text, arguments) {
    case .failure(let error):
        if KnownIssues.verbose { note("  rejected: \(error.message)") }
        return
    case .success(let parsed):
        results = parsed
    }
    let matched = keys(results, "P", read)
    if KnownIssues.verbose { note("  parsed: \(matched.count) of \(all.count) match") }
    guard matched.isSubset(of: all) else { fatalError("P: results hold objects that do not exist") }

    func wrapped(_ format: String) -> Results<T>? {
        switch filtered(base, format, arguments) {
        case .success(let results): return results
        case .failure(let error) where error.message.contains("deeper than"): return nil
        case .failure(let error):
            fatalError("\(format.debugDescription) failed although P parses: \(error.message)")
        }
    }
    if let negated = wrapped("NOT ( " + text + " )") {
        let rest = keys(negated, "NOT ( P )", read)
        guard rest.isDisjoint(with: matched), rest.union(matched) == all else {
            fatalError("P and NOT ( P ) do not partition the objects: P matches \(matched.sorted { "\($0)" < "\($1)" }), NOT ( P ) \(rest.sorted { "\($0)" < "\($1)" })")
        }
    }
    if let scanned = wrapped("FALSEPREDICATE OR ( " + text + " )") {
        let scan = keys(scanned, "FALSEPREDICATE OR ( P )", read)
        guard scan == matched else {
            fatalError("P and FALSEPREDICATE OR ( P ) (a full scan) differ: P matches \(matched.sorted { "\($0)" < "\($1)" }), the scan \(scan.sorted { "\($0)" < "\($1)" })")
        }
    }
}
