// Key paths of the EvaluatorFuzzer grammar: every path of up to three steps from EvalPerson or
// EvalDog through links, lists, sets, maps, embedded objects and backlinks, listed once per
// process (`EvalPaths.catalog`), with what it reaches and whether it is many-valued. The
// generator picks paths from this catalog by role, so every path it uses is one Strata's parser
// accepts.

/// The class a predicate (or a SUBQUERY's inner predicate) is evaluated on.
public enum EvalClass: Sendable, Equatable {
    case dog, person

    var className: String { self == .dog ? "EvalDog" : "EvalPerson" }
}

/// What a key path reaches.
public enum EvalType: Sendable, Equatable {
    case int, double, string, dog, person, address

    var isNumeric: Bool { self == .int || self == .double }
    var objectClass: EvalClass? { self == .dog ? .dog : self == .person ? .person : nil }
}

/// One step of a key path.
public enum EvalStep: Sendable, Equatable {
    /// A stored property or a LinkingObjects (`owners`).
    case property(String)
    /// `@links.EvalPerson.<property>`: the persons linking here through that property.
    case links(String)
    case mapKey(String)
    case allKeys, allValues
}

/// A key path with what it reaches.
public struct EvalPath: Sendable {
    public var steps: [EvalStep]
    public var type: EvalType
    /// Steps that reach many values (a list, set, map, backlinks); a map key undoes its map's.
    var toMany = 0
    /// Whether the last step is a list, set, map or backlinks property (not a map operator).
    var endsWithCollection = false

    var isMultiple: Bool { toMany > 0 }
    var hasMapKey: Bool { steps.contains { if case .mapKey = $0 { return true } else { return false } } }

    /// The path as a predicate writes it after `prefix` (`""` or `"$v1."`).
    func text(prefix: String = "") -> String {
        var text = prefix
        for (index, step) in steps.enumerated() {
            let dot = index == 0 ? "" : "."
            switch step {
            case .property(let name): text += dot + name
            case .links(let property): text += dot + "@links.EvalPerson." + property
            case .mapKey(let key): text += "[" + EvalLiteral.quoted(key, style: 0) + "]"
            case .allKeys: text += ".@allKeys"
            case .allValues: text += ".@allValues"
            }
        }
        return text
    }
}

/// The key paths of each class.
public enum EvalPaths {
    /// Steps from a value of `type`: (step, what it reaches, reaches many).
    static func steps(from type: EvalType) -> [(EvalStep, EvalType, Bool)] {
        switch type {
        case .person:
            return [(.property("name"), .string, false), (.property("dog"), .dog, false), (.property("dogs"), .dog, true),
                    (.property("tags"), .string, true), (.property("scores"), .int, true), (.property("address"), .address, false)]
        case .dog:
            return [(.property("name"), .string, false), (.property("age"), .int, false), (.property("weight"), .double, false),
                    (.property("owners"), .person, true), (.links("dog"), .person, true), (.links("dogs"), .person, true)]
        case .address:
            return [(.property("city"), .string, false)]
        case .int, .double, .string:
            return []
        }
    }

    /// Every path of 1–3 steps from `root` (a map's key or operator is one more step).
    static func all(from root: EvalClass) -> [EvalPath] {
        var paths: [EvalPath] = []
        var frontier = [EvalPath(steps: [], type: root == .dog ? .dog : .person)]
        for _ in 0..<3 {
            var next: [EvalPath] = []
            for path in frontier {
                for (step, type, many) in steps(from: path.type) {
                    var extended = EvalPath(steps: path.steps + [step], type: type, toMany: path.toMany + (many ? 1 : 0), endsWithCollection: many)
                    next.append(extended)
                    if step == .property("scores") {
                        extended.endsWithCollection = false
                        for key in EvalPools.mapKeys {
                            var keyed = extended
                            keyed.steps.append(.mapKey(key))
                            keyed.toMany -= 1
                            paths.append(keyed)
                        }
                        var keys = extended
                        keys.steps.append(.allKeys)
                        keys.type = .string
                        paths.append(keys)
                        var values = extended
                        values.steps.append(.allValues)
                        paths.append(values)
                    }
                }
            }
            paths += next
            frontier = next
        }
        // Shortest first (stable), for the generator's bias to short paths.
        return paths.enumerated().sorted { ($0.element.steps.count, $0.offset) < ($1.element.steps.count, $1.offset) }.map(\.element)
    }

    /// Paths by role, for one root class.
    struct Catalog: Sendable {
        /// Paths to Ints, Doubles and Strings.
        var values: [EvalPath]
        /// Single-valued paths to Ints, Doubles and Strings (the right side of path comparisons).
        var singleValues: [EvalPath]
        /// Paths to links (a to-one link, lists and backlinks of objects).
        var links: [EvalPath]
        /// Collections with one many-valued step, their last: for @count, aggregates, SUBQUERY.
        var collections: [EvalPath]
        /// Single-valued numeric paths of at most two steps, no map key: what @min/@max/@sum/@avg
        /// read from each element of a collection of objects of this class (a map key cannot
        /// follow an aggregate: the parser reads `['k']` after a plain key path only).
        var elementNumbers: [EvalPath]
        /// The embedded address (from a person).
        var addresses: [EvalPath]

        init(_ root: EvalClass) {
            let all = EvalPaths.all(from: root)
            values = all.filter { $0.type == .int || $0.type == .double || $0.type == .string }
            singleValues = values.filter { !$0.isMultiple }
            links = all.filter { $0.type.objectClass != nil }
            collections = all.filter { $0.toMany == 1 && $0.endsWithCollection }
            addresses = all.filter { $0.type == .address && !$0.isMultiple }
            elementNumbers = values.filter { !$0.isMultiple && $0.type.isNumeric && $0.steps.count <= 2 && !$0.hasMapKey }
        }
    }

    static let person = Catalog(.person)
    static let dog = Catalog(.dog)

    static func catalog(_ root: EvalClass) -> Catalog { root == .dog ? dog : person }
}
