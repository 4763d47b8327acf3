// The object graph of one EvaluatorFuzzer input, as plain values: what the harness writes to
// the database and what the brute-force oracle (EvaluatorFuzzerOracle.swift) reads. Decoded
// from the front of the input; every byte string decodes (missing bytes read as 0).
//
//   byte 0              dogs: 1 + byte % 12
//   byte 1              persons: 1 + byte % 12
//   each dog            name, age, weight (pool indexes; a name already taken moves on to the
//                       next free one)
//   each person         name; dog (0 nil, else the (byte - 1) % dogs-th dog); dogs (count % 5,
//                       then one byte per dog, repeats allowed); tags (a mask over the 8 tags);
//                       scores (count % 4, then key and value bytes; a key already set is
//                       skipped); address (0 nil, else a city)

import Foundation

/// A dog's values.
public struct EvalDogValue: Sendable {
    public var name: String
    public var age: Int
    public var weight: Double?
}

/// A person's values; links are indexes into `EvalGraph.dogs`.
public struct EvalPersonValue: Sendable {
    public var name: String
    public var dog: Int?
    public var dogs: [Int]
    /// Distinct by bytes, as a MutableSet keeps them.
    public var tags: [String]
    /// Keys distinct by bytes, in insertion order.
    public var scores: [(key: String, value: Int)]
    /// The address's city; nil when there is no address.
    public var city: String?
}

/// Every object of one input.
public struct EvalGraph: Sendable {
    public var dogs: [EvalDogValue] = []
    public var persons: [EvalPersonValue] = []

    /// Decodes the graph from the front of `reader`.
    init(_ reader: inout OpsByteReader) {
        let dogCount = 1 + reader.next() % 12
        let personCount = 1 + reader.next() % 12
        var taken = Set<Int>()
        for _ in 0..<dogCount {
            let name = EvalGraph.unused(reader.next(), of: EvalPools.dogNames.count, &taken)
            dogs.append(EvalDogValue(
                name: EvalPools.dogNames[name],
                age: EvalPools.ages[reader.next() % EvalPools.ages.count],
                weight: EvalPools.weights[reader.next() % EvalPools.weights.count]))
        }
        taken = []
        for _ in 0..<personCount {
            let name = EvalGraph.unused(reader.next(), of: EvalPools.personNames.count, &taken)
            let link = reader.next() % (dogCount + 1)
            let dogs = (0..<(reader.next() % 5)).map { _ in reader.next() % dogCount }
            let mask = reader.next()
            let tags = EvalPools.tags.indices.filter { mask & (1 << $0) != 0 }.map { EvalPools.tags[$0] }
            var scores: [(key: String, value: Int)] = []
            for _ in 0..<(reader.next() % 4) {
                let key = EvalPools.scoreKeys[reader.next() % EvalPools.scoreKeys.count]
                let value = EvalPools.scoreValues[reader.next() % EvalPools.scoreValues.count]
                if !scores.contains(where: { $0.key.utf8.elementsEqual(key.utf8) }) { scores.append((key, value)) }
            }
            let address = reader.next()
            persons.append(EvalPersonValue(
                name: EvalPools.personNames[name], dog: link == 0 ? nil : link - 1, dogs: dogs, tags: tags,
                scores: scores, city: address == 0 ? nil : EvalPools.cities[(address - 1) % EvalPools.cities.count]))
        }
    }

    /// `byte % count`, or the next index after it not yet in `taken`; inserts it.
    private static func unused(_ byte: Int, of count: Int, _ taken: inout Set<Int>) -> Int {
        var index = byte % count
        while taken.contains(index) { index = (index + 1) % count }
        taken.insert(index)
        return index
    }

    /// The persons whose `dogs` list holds dog `index` (each once, as LinkingObjects lists them).
    func owners(ofDog index: Int) -> [Int] {
        persons.indices.filter { persons[$0].dogs.contains(index) }
    }

    /// The persons whose `dog` is dog `index`.
    func keepers(ofDog index: Int) -> [Int] {
        persons.indices.filter { persons[$0].dog == index }
    }

    /// One line per object, for messages.
    public var description: String {
        let dogLines = dogs.enumerated().map { index, dog in
            "  dog \(index) \(EvalLiteral.shown(dog.name)) age \(dog.age) weight \(dog.weight.map { "\($0)" } ?? "nil")"
        }
        let personLines = persons.enumerated().map { index, person in
            "  person \(index) \(EvalLiteral.shown(person.name)) dog \(person.dog.map { "\($0)" } ?? "nil") dogs \(person.dogs)"
                + " tags [\(person.tags.map(EvalLiteral.shown).joined(separator: ", "))] scores [\(person.scores.map { "\(EvalLiteral.shown($0.key)): \($0.value)" }.joined(separator: ", "))]"
                + " city \(person.city.map(EvalLiteral.shown) ?? "nil (no address)")"
        }
        return (dogLines + personLines).joined(separator: "\n")
    }
}
