import Foundation
import XCTest
@testable import Strata
@_spi(Testing) import StrataStorage

final class PredDog: Object {
    @Persisted var name: String
    @Persisted var age: Int
    @Persisted var weight: Double
    @Persisted var alive: Bool
    @Persisted var nick: String?
}

final class PredThing: Object {
    @Persisted var when: Date
    @Persisted var blob: Data
    @Persisted var ref: UUID
    @Persisted var oid: ObjectId
    @Persisted var price: Decimal128
    @Persisted var ratio: Float
    @Persisted var small: Int8
    @Persisted var owner: PredDog?
    @Persisted var any: String?
    @Persisted var tags: List<String>
    @Persisted var place: PredPlace?
}

final class PredPlace: EmbeddedObject {
    @Persisted var city: String
}

private struct PredOpaque {}


final class PredicateParserTests: XCTestCase {
    var schema: ObjectSchema!
    let rows: [[FieldValue]] = [
        [.string("Rex"), .int(3), .double(12.5), .bool(true), .null],
        [.string("Fido"), .int(7), .double(30), .bool(false), .string("fi")],
        [.string("rover"), .int(2), .double(8.25), .bool(true), .string("Rov")],
        [.string("Bella"), .int(10), .double(22), .bool(true), .string("bee")],
        [.string("St*r?"), .int(0), .double(0), .bool(false), .string("")],
    ]

    override func setUpWithError() throws {
        schema = try ObjectSchema(PredDog.self)
    }

    /// The names of the rows `format` matches.
    func names(_ format: String, _ args: Any..., file: StaticString = #filePath, line: UInt = #line) -> [String] {
        do {
            let node = try PredicateParser.parse(format, arguments: args, schema: schema)
            return rows.filter { QueryEvaluator.matches(node, $0) }.map {
                if case .string(let name) = $0[0] { return name } else { return "?" }
            }
        } catch {
            XCTFail("\(format): \(error)", file: file, line: line)
            return []
        }
    }

    /// Asserts `format` fails with an `.invalidQuery` error whose message contains each part.
    func assertError(_ format: String, _ args: Any..., schema: ObjectSchema? = nil, contains parts: String...,
                     file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try PredicateParser.parse(format, arguments: args, schema: schema ?? self.schema)
            XCTFail("\(format) parsed", file: file, line: line)
        } catch let error as StrataError {
            XCTAssertEqual(error.code, .invalidQuery, file: file, line: line)
            for part in parts {
                XCTAssertTrue(error.message.contains(part), "\"\(error.message)\" lacks \"\(part)\"", file: file, line: line)
            }
        } catch {
            XCTFail("\(format): \(error)", file: file, line: line)
        }
    }

    // MARK: Operators

    func testComparisonOperators() {
        XCTAssertEqual(names("age == 3"), ["Rex"])
        XCTAssertEqual(names("age = 3"), ["Rex"])
        XCTAssertEqual(names("age != 3"), ["Fido", "rover", "Bella", "St*r?"])
        XCTAssertEqual(names("age <> 3"), ["Fido", "rover", "Bella", "St*r?"])
        XCTAssertEqual(names("age < 3"), ["rover", "St*r?"])
        XCTAssertEqual(names("age <= 3"), ["Rex", "rover", "St*r?"])
        XCTAssertEqual(names("age =< 3"), ["Rex", "rover", "St*r?"])
        XCTAssertEqual(names("age > 7"), ["Bella"])
        XCTAssertEqual(names("age >= 7"), ["Fido", "Bella"])
        XCTAssertEqual(names("age => 7"), ["Fido", "Bella"])
        XCTAssertEqual(names("name == 'Rex'"), ["Rex"])
        XCTAssertEqual(names("name < \"F\""), ["Bella"])
        XCTAssertEqual(names("alive == false"), ["Fido", "St*r?"])
    }

    func testConstantOnTheLeftFlips() {
        XCTAssertEqual(names("3 < age"), ["Fido", "Bella"])
        XCTAssertEqual(names("7 >= age"), ["Rex", "Fido", "rover", "St*r?"])
        XCTAssertEqual(names("'Rex' == name"), ["Rex"])
        XCTAssertEqual(names("nil == nick"), ["Rex"])
    }

    func testNumbersCompareAcrossIntAndDouble() {
        XCTAssertEqual(names("age > 2.5"), ["Rex", "Fido", "Bella"])
        XCTAssertEqual(names("weight == 30"), ["Fido"])
        XCTAssertEqual(names("weight < %@", 9), ["rover", "St*r?"])
        XCTAssertEqual(names("age < weight"), ["Rex", "Fido", "rover", "Bella"])
        XCTAssertEqual(names("age > -1 AND age < +3"), ["rover", "St*r?"])
        XCTAssertEqual(names("age == 0x7 OR age == 0b11 OR age == 0o12"), ["Rex", "Fido", "Bella"])
        XCTAssertEqual(names("weight == 1.25e1 OR weight == 825E-2"), ["Rex", "rover"])
    }

    func testStringOperatorsAndCaseOptions() {
        XCTAssertEqual(names("name BEGINSWITH 'R'"), ["Rex"])
        XCTAssertEqual(names("name BEGINSWITH[c] 'R'"), ["Rex", "rover"])
        XCTAssertEqual(names("name ENDSWITH 'a'"), ["Bella"])
        XCTAssertEqual(names("name ENDSWITH[cd] 'X'"), ["Rex"])
        XCTAssertEqual(names("name CONTAINS 'e'"), ["Rex", "rover", "Bella"])
        XCTAssertEqual(names("name CONTAINS[c] 'E'"), ["Rex", "rover", "Bella"])
        XCTAssertEqual(names("name CONTAINS[d] 'E'"), [], "[d] alone is accepted and ignored")
        XCTAssertEqual(names("nick CONTAINS 'i'"), ["Fido"], "nil never matches a string operator")
        XCTAssertEqual(names("name ==[c] 'REX'"), ["Rex"])
        XCTAssertEqual(names("name !=[c] 'rex' AND name !=[c] 'FIDO'"), ["rover", "Bella", "St*r?"])
        XCTAssertEqual(names("name ==[c] 's*'"), [], "==[c] does not treat * as a wildcard")
        XCTAssertEqual(names("name ==[c] 'st*R?'"), ["St*r?"])
        XCTAssertEqual(names("nick ==[c] nil"), ["Rex"])
    }

    func testLikeWildcards() {
        XCTAssertEqual(names("name LIKE 'R*'"), ["Rex"])
        XCTAssertEqual(names("name LIKE[c] 'r*'"), ["Rex", "rover"])
        XCTAssertEqual(names("name LIKE '?ido'"), ["Fido"])
        XCTAssertEqual(names("name LIKE '*e*a'"), ["Bella"])
        XCTAssertEqual(names("name LIKE 'Rex?'"), [])
        XCTAssertEqual(names("name LIKE 'St\\\\*r\\\\?'"), ["St*r?"], "backslash escapes a wildcard")
        XCTAssertTrue(LikePattern.matches("", "*", caseInsensitive: false))
        XCTAssertFalse(LikePattern.matches("", "?", caseInsensitive: false))
        XCTAssertTrue(LikePattern.matches("abcabcabd", "*abd", caseInsensitive: false))
        XCTAssertTrue(LikePattern.matches("ÄBC", "ä?c", caseInsensitive: true))
        XCTAssertTrue(LikePattern.matches("a\\", "a\\", caseInsensitive: false), "a trailing backslash is literal")
        XCTAssertFalse(LikePattern.matches(String(repeating: "a", count: 2000), String(repeating: "*a", count: 50) + "b", caseInsensitive: false))
        XCTAssertTrue(LikePattern.matches("x*?\\y", LikePattern.escape("x*?\\y"), caseInsensitive: false))
    }

    // MARK: Logic

    func testPrecedenceAndParentheses() {
        XCTAssertEqual(names("name == 'Fido' OR age > 5 AND alive == true"), ["Fido", "Bella"], "AND binds tighter")
        XCTAssertEqual(names("(name == 'Fido' OR age > 5) AND alive == true"), ["Bella"])
        XCTAssertEqual(names("name == 'Fido' || age > 5 && alive == YES"), ["Fido", "Bella"])
        XCTAssertEqual(names("NOT age > 5 AND alive == true"), ["Rex", "rover"], "NOT binds tightest")
        XCTAssertEqual(names("NOT (age > 5 AND alive == true)"), ["Rex", "Fido", "rover", "St*r?"])
        XCTAssertEqual(names("!(age > 5)"), ["Rex", "rover", "St*r?"])
        XCTAssertEqual(names("NOT NOT age > 5"), ["Fido", "Bella"])
        XCTAssertEqual(names("((((age == 3))))"), ["Rex"])
        XCTAssertEqual(names("TRUEPREDICATE").count, 5)
        XCTAssertEqual(names("FALSEPREDICATE"), [])
        XCTAssertEqual(names("truepredicate AND NOT falsepredicate").count, 5)
    }

    func testKeywordsIgnoreCaseAndEscapedNames() {
        XCTAssertEqual(names("age > 5 and alive == TRUE"), ["Bella"])
        XCTAssertEqual(names("name beginsWith 'R' or alive == no"), ["Rex", "Fido", "St*r?"])
        XCTAssertEqual(names("#age between {3, 3}"), ["Rex"])
        XCTAssertEqual(names("nick == Nil"), ["Rex"])
    }

    func testStringLiteralEscapes() throws {
        let node = try PredicateParser.parse(#"name == 'it\'s \"\u0041\"\n' OR name == "q\"\\""#, arguments: [], schema: schema)
        XCTAssertTrue(QueryEvaluator.matches(node, [.string("it's \"A\"\n"), .int(0), .double(0), .bool(false), .null]))
        XCTAssertTrue(QueryEvaluator.matches(node, [.string("q\"\\"), .int(0), .double(0), .bool(false), .null]))
    }

    // MARK: Arguments

    func testPositionalArgumentsOfEveryType() throws {
        XCTAssertEqual(names("age == %@", 3), ["Rex"])
        XCTAssertEqual(names("age == %@ OR age == %@ OR age == %@ OR age == %@", Int8(3), Int16(7), Int32(2), Int64(10)), ["Rex", "Fido", "rover", "Bella"])
        XCTAssertEqual(names("age == %@", UInt(7)), ["Fido"])
        XCTAssertEqual(names("age == %@ OR weight == %@", NSNumber(value: 7), NSNumber(value: 12.5)), ["Rex", "Fido"])
        XCTAssertEqual(names("name == %@", Substring("xRex").dropFirst()), ["Rex"], "a Substring is a string")
        XCTAssertEqual(names("weight > %@ AND weight < %@", Float(12), 25.0), ["Rex", "Bella"])
        XCTAssertEqual(names("name BEGINSWITH %@ AND alive == %@", "R", true), ["Rex"])
        XCTAssertEqual(names("nick == %@", Optional<String>.none as Any), ["Rex"])
        XCTAssertEqual(names("nick != %@", NSNull()), ["Fido", "rover", "Bella", "St*r?"])
        XCTAssertEqual(names("nick == %@", Optional("fi") as Any), ["Fido"])
        XCTAssertEqual(names("%K == %@", "name", "Bella"), ["Bella"])
        XCTAssertEqual(names("%K < %K", "age", "weight").count, 4)

        let things = try ObjectSchema(PredThing.self)
        let date = Date(timeIntervalSinceReferenceDate: 1000), data = Data([1, 2]), uuid = UUID(), oid = ObjectId.generate()
        let row: [FieldValue] = [.date(1000), .data(data), .uuid(uuid), .objectId(oid), .decimal(try Decimal128(string: "1.10")),
                                 .float(0.1), .int(-5), .null, .null, .list([]), .null]
        func check(_ format: String, _ args: Any..., expect: Bool = true, line: UInt = #line) {
            do {
                let node = try PredicateParser.parse(format, arguments: args, schema: things)
                XCTAssertEqual(QueryEvaluator.matches(node, row), expect, format, line: line)
            } catch {
                XCTFail("\(format): \(error)", line: line)
            }
        }
        check("when == %@ AND when < %@", date, date.addingTimeInterval(1))
        check("blob == %@ AND blob == '\u{1}\u{2}'", data)
        check("ref == %@ AND ref == %@", uuid, uuid.uuidString)
        check("oid == %@ AND oid == %@", oid, oid.stringValue)
        check("price == %@ AND price == 1.10 AND price > 1 AND price < %@", try Decimal128(string: "1.10"), 2)
        // Equality is of stored bytes: 1.1 is not 1.10, though neither is less than the other.
        check("price == 1.1 OR price == %@", try Decimal128(string: "1.1"), expect: false)
        check("price >= 1.1 AND price <= 1.1")
        check("ratio == 0.1 AND ratio == %@", Float(0.1))
        check("small == -5 AND small < %@", Int8(0))
        check("owner == nil AND nil == owner AND any == nil")
        check("owner != nil OR place != nil", expect: false)
    }

    func testInAndBetween() {
        XCTAssertEqual(names("age IN {2, 3}"), ["Rex", "rover"])
        XCTAssertEqual(names("age in {}"), [])
        XCTAssertEqual(names("name IN[c] {'REX', 'bella', %@}", "fido"), ["Rex", "Fido", "Bella"])
        XCTAssertEqual(names("age IN %@", [3, 7]), ["Rex", "Fido"])
        XCTAssertEqual(names("age IN %@", Set([10])), ["Bella"])
        XCTAssertEqual(names("nick IN {nil, 'fi'}"), ["Rex", "Fido"])
        XCTAssertEqual(names("NOT age IN {2, 3} AND alive == true"), ["Bella"])
        XCTAssertEqual(names("age BETWEEN {3, 7}"), ["Rex", "Fido"])
        XCTAssertEqual(names("weight BETWEEN %@", [10, 25.0]), ["Rex", "Bella"])
        XCTAssertEqual(names("age BETWEEN {%@, %@}", 7, 10), ["Fido", "Bella"])
    }

    func testNilComparisons() {
        XCTAssertEqual(names("nick == nil"), ["Rex"])
        XCTAssertEqual(names("nick != NULL"), ["Fido", "rover", "Bella", "St*r?"])
        XCTAssertEqual(names("nick == ''"), ["St*r?"])
        XCTAssertEqual(names("age == nil"), [], "nil never equals a non-optional property")
    }

    func testLongChainsStayShallow() throws {
        let format = Array(repeating: "age == 1", count: 20_000).joined(separator: " OR ") + " OR age == 3"
        XCTAssertEqual(names(format), ["Rex"])
        let list = "age IN {" + (0..<20_000).map { "\($0 + 100)" }.joined(separator: ",") + ", 10}"
        XCTAssertEqual(names(list), ["Bella"])
    }

    // MARK: Errors

    func testErrorsNameTheTokenAndColumn() throws {
        assertError("agee > 3", contains: "PredDog has no property 'agee'", "column 1")
        assertError("%K == 3", "agee", contains: "no property 'agee'", "argument 1 for %K")
        assertError("%K == 3", 5, contains: "%K must be a String", "Int")
        assertError("age == 'x'", contains: "cannot compare Int property 'age'", "'x'", "column 8")
        assertError("name == 3", contains: "String property 'name'", "'3'")
        assertError("alive == %@", "yes", contains: "Bool property 'alive'", "argument 1")
        assertError("name == 'Rex", contains: "unterminated string 'Rex", "column 9")
        assertError("age > 3 age", contains: "unexpected 'age' after a complete predicate", "column 9")
        assertError("age > 3)", contains: "unexpected ')'", "column 8")
        assertError("age > %@ AND name == %@", 3, contains: "no argument left for '%@'", "column 22")
        assertError("age > %@", 3, 4, contains: "2 arguments were given but the predicate uses 1")
        assertError("age @ 3", contains: "unexpected character '@'", "column 5")
        assertError("age > 3abc", contains: "malformed number '3abc'", "column 7")
        assertError("age > %x", 3, contains: "unsupported format specifier '%x'")
        assertError("age > $x", contains: "unknown variable $x")
        assertError("", contains: "empty")
        assertError("age >", contains: "expected a property or a value but found the end of the predicate", "column 6")
        assertError("(age > 3", contains: "expected ')'", "column 9")
        assertError("alive", contains: "expected a comparison operator after 'alive'", "alive == true")
        assertError("age < nil", contains: "'<' cannot compare with nil")
        assertError("age <[c] 3", contains: "[c] and [d] apply only to")
        assertError("age ==[c] 3", contains: "[c] and [d] need strings")
        assertError("name ==[x] 'a'", contains: "comparison option", "'x'")
        assertError("age BEGINSWITH 'a'", contains: "BEGINSWITH needs strings", "Int property 'age'")
        assertError("name CONTAINS 3", contains: "CONTAINS needs strings", "'3'")
        assertError("alive > false", contains: "'>' does not apply to Bool property 'alive'")
        assertError("age BETWEEN {1, 2, 3}", contains: "exactly two values")
        assertError("age IN %@", 3, contains: "must be an array", "Int")
        assertError("age == %@", [1, 2], contains: "argument 1 is a collection")
        assertError("age == %@", PredOpaque(), contains: "argument 1 is a PredOpaque")
        assertError("name == %@", PredDog(), contains: "unmanaged PredDog")
        assertError("owner.nosuch == 'x'", schema: try ObjectSchema(PredThing.self), contains: "PredDog has no property 'nosuch'", "'owner.nosuch'")
        assertError("tags.@avg > 1", schema: try ObjectSchema(PredThing.self), contains: "@avg needs numbers", "not String")
        assertError("age == %@", List([1, 2]), contains: "argument 1 is a collection")
        assertError("place == %@", PredPlace(), schema: try ObjectSchema(PredThing.self), contains: "embedded PredPlace")
        assertError("ANY age == 3", contains: "ANY needs a list, set, map or backlinks key path", "'age'")
        assertError("age == AND", contains: "found 'AND'", "column 8")
        assertError("age == -99999999999999999999999999e999999", contains: "number '-99999999999999999999999999e999999' is out of range", "column 8")
        assertError("age == 0xFFFFFFFFFFFFFFFFFF", contains: "out of range")
        assertError("age < name", contains: "cannot compare 'age' (Int) with 'name' (String)")
        assertError("age == { 3 }", contains: "only after IN or BETWEEN")
    }

    func testNestingLimit() {
        let depth = PredicateParser.maxDepth
        XCTAssertEqual(names(String(repeating: "(", count: depth) + "age == 3" + String(repeating: ")", count: depth)), ["Rex"])
        XCTAssertEqual(names(String(repeating: "NOT ", count: depth) + "age == 3"), ["Rex"])
        assertError(String(repeating: "(", count: depth + 1) + "age == 3" + String(repeating: ")", count: depth + 1), contains: "deeper than \(depth)")
        assertError(String(repeating: "!", count: 100_000) + "age == 3", contains: "deeper than \(depth)")
        assertError(String(repeating: "(NOT ", count: 60) + "age == 3" + String(repeating: ")", count: 60), contains: "deeper")
    }

    private func randomPredicate(depth: Int, using random: inout SplitMix64) -> String {
        let atoms = [
            "age > 3", "3 <= age", "name BEGINSWITH[c] 'r'", "nick == nil", "weight BETWEEN { 1 , 20 }", "age IN { 1 , 2 , 3 }",
            "name LIKE '*o*'", "alive == YES", "TRUEPREDICATE", "name ==[c] 'REX'", "nick CONTAINS 'i'", "age < weight",
        ]
        switch Int.random(in: 0..<5, using: &random) {
        case 0 where depth < 6:
            let connective = ["AND", "OR", "&&", "||"].randomElement(using: &random)!
            return "( \(randomPredicate(depth: depth + 1, using: &random)) \(connective) \(randomPredicate(depth: depth + 1, using: &random)) )"
        case 1 where depth < 6:
            return "\(Bool.random(using: &random) ? "NOT" : "!") \(randomPredicate(depth: depth + 1, using: &random))"
        default:
            return atoms.randomElement(using: &random)!
        }
    }

    /// 10,000 strings of predicate tokens and junk, well-formed predicates with a token dropped
    /// or repeated, and valid ones with random ASCII characters spliced in: each parses (and then
    /// evaluates) or throws a StrataError; none traps.
    func testRandomInputNeverTraps() throws {
        let pieces = [
            "age", "name", "weight", "alive", "nick", "agee", "#age", "%K", "%@", "%", "%d", "$0", "(", ")", "{", "}",
            ",", "[c]", "[cd]", "[", "]", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "!", "&&", "||",
            "AND", "or", "NOT", "IN", "between", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "TRUEPREDICATE",
            "FALSEPREDICATE", "true", "NO", "nil", "NULL", "3", "-2", "2.5", "1e3", "0x1F", "0b", "99999999999999999999",
            "'R*'", "\"x\\\"y\"", "'unterminated", "\\", "'\\u12'", "@", "ANY", "é", "🐶", "\u{0}", " ", " ", "\t",
        ]
        let argumentPool: [Any] = [3, "R", "age", "name", 2.5, true, NSNull(), Optional<Int>.none as Any, [1, 2], PredOpaque(), Data([1])]
        var random = SplitMix64(seed: 0x5EED)
        var parsed = 0
        for _ in 0..<10_000 {
            var format = ""
            for _ in 0..<Int.random(in: 1...12, using: &random) {
                format += pieces.randomElement(using: &random)!
                if Bool.random(using: &random) { format += " " }
            }
            var args = (0..<Int.random(in: 0...3, using: &random)).map { _ in argumentPool.randomElement(using: &random)! }
            let mode = Int.random(in: 0..<4, using: &random)
            var mustParse = false
            if mode == 1 {
                // A well-formed predicate, then maybe one token dropped or repeated.
                var words = randomPredicate(depth: 0, using: &random).split(separator: " ").map(String.init)
                args = []
                mustParse = Bool.random(using: &random)
                if !mustParse {
                    let index = Int.random(in: 0..<words.count, using: &random)
                    if Bool.random(using: &random) { words.remove(at: index) } else { words.insert(words[index], at: index) }
                }
                format = words.joined(separator: " ")
            } else if mode == 2 {
                // A valid predicate with a few characters replaced by random scalars.
                var scalars = Array("(age > %@ AND name BEGINSWITH[c] 'R') OR nick IN {nil, \"x\"}".unicodeScalars)
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let scalar = Unicode.Scalar(UInt8.random(in: 0...127, using: &random))
                    scalars[Int.random(in: 0..<scalars.count, using: &random)] = scalar
                }
                format = String(String.UnicodeScalarView(scalars))
                args = [argumentPool.randomElement(using: &random)!]
            }
            do {
                let node = try PredicateParser.parse(format, arguments: args, schema: schema)
                parsed += 1
                for row in rows { _ = QueryEvaluator.matches(node, row) }
            } catch let error as StrataError {
                if mustParse { XCTFail("\(format): \(error)") }
            } catch {
                XCTFail("\(format): not a StrataError: \(error)")
            }
        }
        XCTAssertGreaterThan(parsed, 1000, "many random predicates are valid")
    }
}

final class PredicateFilterDatabaseTests: DatabaseTestCase {
    func testFilterThroughADatabase() throws {
        let db = try open()
        try addFourDogs(to: db)
        let dogs = db.objects(Dog.self).filter("age > %@ AND name BEGINSWITH %@", 2, "R")
        XCTAssertEqual(Set(dogs.map(\.name)), ["Rex", "Rusty"])
        let young = dogs.filter("age < 5").sorted(byKeyPath: "name")
        XCTAssertEqual(young.map(\.name), ["Rex"])
        let combined = db.objects(Dog.self).where { $0.age < 6 }.filter("name LIKE[c] %@", "r*")
        XCTAssertEqual(combined.sorted(byKeyPath: "age").map(\.name), ["Rover", "Rex"])
        XCTAssertEqual(db.objects(Dog.self).filter("breed == nil").count, 4)
        XCTAssertThrowsError(try db.objects(Dog.self).filter(checking: "agee > 2")) { error in
            XCTAssertEqual((error as? StrataError)?.code, .invalidQuery)
            XCTAssertTrue((error as? StrataError)?.message.contains("Dog has no property 'agee' (at column 1)") ?? false, "\(error)")
        }
        XCTAssertEqual(try db.objects(Dog.self).filter(checking: "name IN %@", ["Fido", "Rex"]).count, 2)

        // An equality on an indexed property (the index answers it) and on the primary key.
        try db.write {
            for name in ["Ann", "Bob"] {
                let person = Person()
                person.name = name
                try db.add(person)
            }
        }
        XCTAssertEqual(db.objects(Person.self).filter("name == %@", "Bob").map(\.name), ["Bob"])
        XCTAssertEqual(db.objects(Person.self).filter("name ==[c] 'ann' OR name == 'Bob'").count, 2)
        let bob = try XCTUnwrap(db.objects(Person.self).filter("name == 'Bob'").first)
        XCTAssertEqual(db.objects(Person.self).filter("_id == %@", bob._id).map(\.name), ["Bob"])
    }
}

extension PredicateParser {
    /// Parses against one class on its own (no links to follow).
    static func parse(_ format: String, arguments: [Any], schema: ObjectSchema) throws -> QueryNode {
        let schemas = try SchemaSet([PredDog.self, PredThing.self, PredPlace.self])
        return try parse(format, arguments: arguments, schema: schemas.schema(named: schema.className) ?? schema, schemas: schemas)
    }
}
