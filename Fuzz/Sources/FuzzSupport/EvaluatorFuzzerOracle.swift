// The EvaluatorFuzzer's oracle: evaluates a predicate (EvaluatorFuzzerPredicate.swift) over the
// plain values of the graph (EvaluatorFuzzerGraph.swift) by brute force, with Realm's rules,
// written from the documentation and never from Strata's evaluator:
//
// - a to-one step through a nil link (or a nil embedded object) gives null: `dog.age == nil`
//   holds, `dog.age > 3` does not; a to-many step through one gives nothing;
// - a many-valued path is ANY by default; ALL and NONE over nothing hold;
// - null is not less or greater than anything (`<`, `BETWEEN`… are false);
// - `@count` counts elements (a list's duplicates too; LinkingObjects lists each object once),
//   `@sum` of nothing is 0, `@min`/`@max`/`@avg` of nothing are null, nulls are skipped;
// - strings are equal and ordered by their UTF-8 bytes; `[d]` removes diacritics (Foundation's
//   `folding(options: .diacriticInsensitive, locale: nil)`) and `[c]` compares `lowercased()`,
//   after which the bytes compare again; BEGINSWITH, ENDSWITH and CONTAINS look at bytes, and
//   LIKE's `?` matches one Unicode scalar (a code point, as Realm's);
// - numbers compare by value across Int and Double (every pool value is exact in a Double).

import Foundation

/// What a key path reaches at one step.
enum EvalItem {
    case dog(Int)
    case person(Int)
    case address(Int)
    case map(Int)
    case value(EvalValue)
}

struct EvalOracle {
    let graph: EvalGraph
    var rules = EvalStringRules.bytes

    func matches(_ node: EvalPredicate, _ object: EvalItem) -> Bool {
        switch node {
        case .constant(let value, _): return value
        case .not(let inner, _): return !matches(inner, object)
        case .and(let terms, _): return terms.allSatisfy { matches($0, object) }
        case .or(let terms, _): return terms.contains { matches($0, object) }
        case .compare(let comparison): return holds(comparison, object)
        }
    }

    private func holds(_ comparison: EvalComparison, _ object: EvalItem) -> Bool {
        let left = values(comparison.lhs, object)
        let test: (EvalValue) -> Bool
        switch comparison.test {
        case .constant(let op, let options, let constant, _):
            test = { Self.compare(op, $0, constant.value, options, rules: rules) }
        case .operand(let op, let options, let operand):
            let right = values(operand, object)
            test = { value in right.contains { Self.compare(op, value, $0, options, rules: rules) } }
        case .list(let options, let constants, _):
            test = { value in constants.contains { Self.compare(.equal, value, $0.value, options, rules: rules) } }
        case .between(let lower, let upper, _):
            test = {
                Self.compare(.greaterOrEqual, $0, lower.value, EvalOptions())
                    && Self.compare(.lessOrEqual, $0, upper.value, EvalOptions())
            }
        case .inCollection(let options, let collection):
            let right = values(of: collection, object)
            test = { value in right.contains { Self.compare(.equal, value, $0, options, rules: rules) } }
        case .member(let options, let constant):
            test = { Self.compare(.equal, $0, constant.value, options, rules: rules) }
        }
        switch comparison.quantifier {
        case nil, .anyOf, .someOf: return left.contains(where: test)
        case .allOf: return left.allSatisfy(test)
        case .noneOf: return !left.contains(where: test)
        }
    }

    /// The values an operand has for `object`.
    func values(_ operand: EvalOperand, _ object: EvalItem) -> [EvalValue] {
        switch operand {
        case .path(let path):
            return values(of: path, object)
        case .count(let collection, _):
            return [.int(values(of: collection, object).count)]
        case .stringSize(let path):
            guard case .string(let text)? = values(of: path, object).first else { return [.null] }
            return [.int(text.utf8.count)]
        case .aggregate(let aggregate, let collection, let element):
            let items = walk(collection, from: object)
            let found = element.map { element in items.flatMap { values(of: element, $0) } } ?? flatten(items)
            return [Self.aggregate(aggregate, found.compactMap(\.number))]
        case .subquery(let collection, _, let inner):
            return [.int(walk(collection, from: object).filter { item in
                switch item {
                case .dog, .person: return matches(inner, item)
                default: return false
                }
            }.count)]
        }
    }

    /// `@min`, `@max`, `@sum`, `@avg` of the non-null numbers.
    static func aggregate(_ aggregate: EvalAggregate, _ numbers: [Double]) -> EvalValue {
        switch aggregate {
        case .sum: return .double(numbers.reduce(0, +))
        case .min: return numbers.min().map(EvalValue.double) ?? .null
        case .max: return numbers.max().map(EvalValue.double) ?? .null
        case .avg: return numbers.isEmpty ? .null : .double(numbers.reduce(0, +) / Double(numbers.count))
        }
    }

    func values(of path: EvalPath, _ object: EvalItem) -> [EvalValue] {
        flatten(walk(path, from: object))
    }

    /// What `path` reaches from `object`, step by step.
    func walk(_ path: EvalPath, from object: EvalItem) -> [EvalItem] {
        var items = [object]
        for step in path.steps {
            items = items.flatMap { apply(step, to: $0) }
        }
        return items
    }

    private func apply(_ step: EvalStep, to item: EvalItem) -> [EvalItem] {
        switch (step, item) {
        case (.property(let name), .person(let index)):
            let person = graph.persons[index]
            switch name {
            case "name": return [.value(.string(person.name))]
            case "dog": return [person.dog.map(EvalItem.dog) ?? .value(.null)]
            case "dogs": return person.dogs.map(EvalItem.dog)
            case "tags": return person.tags.map { .value(.string($0)) }
            case "scores": return [.map(index)]
            case "address": return [person.city == nil ? .value(.null) : .address(index)]
            default: fatalError("EvaluatorFuzzer oracle: EvalPerson has no \(name)")
            }
        case (.property(let name), .dog(let index)):
            let dog = graph.dogs[index]
            switch name {
            case "name": return [.value(.string(dog.name))]
            case "age": return [.value(.int(dog.age))]
            case "weight": return [.value(dog.weight.map(EvalValue.double) ?? .null)]
            case "owners": return graph.owners(ofDog: index).map(EvalItem.person)
            default: fatalError("EvaluatorFuzzer oracle: EvalDog has no \(name)")
            }
        case (.property("city"), .address(let index)):
            return [.value(.string(graph.persons[index].city!))]
        case (.property(let name), .value(.null)):
            // Through a nil link or embedded object: a to-one step gives null, backlinks nothing.
            return name == "owners" ? [] : [.value(.null)]
        case (.links(let property), .dog(let index)):
            return (property == "dog" ? graph.keepers(ofDog: index) : graph.owners(ofDog: index)).map(EvalItem.person)
        case (.mapKey(let key), .map(let index)):
            let entry = graph.persons[index].scores.first { $0.key.utf8.elementsEqual(key.utf8) }
            return [.value(entry.map { .int($0.value) } ?? .null)]
        case (.allKeys, .map(let index)):
            return graph.persons[index].scores.map { .value(.string($0.key)) }
        case (.allValues, .map):
            return [item]
        default:
            return []
        }
    }

    /// Items as values: objects as links, a map as its values.
    func flatten(_ items: [EvalItem]) -> [EvalValue] {
        items.flatMap { item -> [EvalValue] in
            switch item {
            case .dog(let index): return [.dog(index)]
            case .person(let index): return [.person(index)]
            case .address: return [.embedded]
            case .map(let index): return graph.persons[index].scores.map { .int($0.value) }
            case .value(let value): return [value]
            }
        }
    }
}
