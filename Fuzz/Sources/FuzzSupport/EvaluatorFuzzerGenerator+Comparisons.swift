// The comparison kinds of the EvaluatorFuzzer grammar (see EvaluatorFuzzerGenerator.swift for
// the byte layout): each picks its paths from the catalog of the class it is evaluated on.

extension EvalGenerator {
    mutating func comparison(on root: EvalClass, depth: Int) -> EvalPredicate {
        comparisonsLeft -= 1
        let catalog = EvalPaths.catalog(root)
        let kind = byte() % 14
        // Style bit 4 writes the left key path as %K: an argument too.
        var style = byte()
        if style & 16 != 0 {
            if argumentsLeft > 0 { argumentsLeft -= 1 } else { style &= ~16 }
        }
        func compare(_ quantifier: EvalQuantifier?, _ lhs: EvalOperand, _ test: EvalTest) -> EvalPredicate {
            .compare(EvalComparison(quantifier: quantifier, lhs: lhs, test: test, style: style))
        }
        switch kind {
        case 0...3:
            // path op constant; the constant on the left when nothing forbids it (style bit 2).
            let path = pickPath(catalog.values)
            let quantifier = self.quantifier(.path(path))
            let op = self.op(for: path.type)
            let options = self.options(op, path.type)
            let constant = written(op == .like ? .string(likePattern()) : value(of: path.type, nullable: !op.isOrdering && !op.isString))
            let flipped = quantifier == nil && !op.isString && style & 4 != 0
            return compare(quantifier, .path(path), .constant(op, options, constant, flipped: flipped))
        case 4:
            let path = pickPath(catalog.values)
            let quantifier = self.quantifier(.path(path))
            let options = self.options(.equal, path.type)
            let asArgument = argumentsLeft > 0 && byte() & 1 == 1
            if asArgument { argumentsLeft -= 1 }
            var values: [EvalWritten] = []
            for _ in 0..<(byte() % 4) {
                let constant = value(of: path.type, nullable: true)
                values.append(asArgument ? element(constant) : written(constant))
            }
            return compare(quantifier, .path(path), .list(options, values, asArgument: asArgument))
        case 5:
            let path = pickPath(catalog.values)
            let quantifier = self.quantifier(.path(path))
            let asArgument = argumentsLeft > 0 && byte() & 1 == 1
            if asArgument { argumentsLeft -= 1 }
            let bounds = (0..<2).map { _ -> EvalWritten in
                let constant = value(of: path.type, nullable: false)
                return asArgument ? element(constant) : written(constant)
            }
            return compare(quantifier, .path(path), .between(bounds[0], bounds[1], asArgument: asArgument))
        case 6:
            let path = pickPath(catalog.multipleValues)
            let options = self.options(.equal, path.type)
            return compare(nil, .path(path), .member(options, written(value(of: path.type, nullable: true))))
        case 7:
            let path = pickPath(catalog.values)
            let quantifier = self.quantifier(.path(path))
            let op = self.op(for: path.type)
            let options = self.options(op, path.type)
            let rhs = path.type == .string || byte() & 1 == 0
                ? EvalOperand.path(pickPath(catalog.singleValues.filter { ($0.type == .string) == (path.type == .string) }))
                : number(on: root)
            return compare(quantifier, .path(path), .operand(op, options, rhs))
        case 8, 9:
            let lhs = number(on: root, aggregate: kind == 9)
            let op = pick(EvalGenerator.numericOperators)
            // Only @min, @max and @avg can be null (of nothing).
            var nullable = false
            if case .aggregate(let aggregate, _, _) = lhs, aggregate != .sum, !op.isOrdering { nullable = true }
            let constant = written(value(of: .int, nullable: nullable))
            return compare(nil, lhs, .constant(op, EvalOptions(), constant, flipped: style & 4 != 0))
        case 10:
            guard subqueries < 2, depth < EvalGenerator.maxDepth else { return comparison(on: root, depth: depth) }
            let collection = pickPath(catalog.objectCollections)
            let variable = "$" + pick(["d", "x", "item", "o"]) + String(subqueries)
            subqueries += 1
            let inner = predicate(on: collection.type.objectClass!, depth: depth + 1)
            subqueries -= 1
            let op = pick(EvalGenerator.numericOperators)
            let count = written(.int(byte() % 4))
            return compare(nil, .subquery(collection, variable: variable, inner), .constant(op, EvalOptions(), count, flipped: style & 4 != 0))
        case 11:
            return links(catalog, compare)
        case 12:
            // A to-one value or embedded object against nil.
            let path = pickPath(catalog.nullable)
            return compare(nil, .path(path), .constant(pick([.equal, .notEqual]), EvalOptions(), written(.null), flipped: style & 4 != 0))
        default:
            let path = pickPath(catalog.singleValues)
            let collection = pickPath(catalog.multipleValues.filter { ($0.type == .string) == (path.type == .string) })
            return compare(nil, .path(path), .inCollection(options(.equal, path.type), collection))
        }
    }

    /// A single number from `root`'s objects: a collection's @count or @size, a string's @size,
    /// or (when `aggregate`) @min/@max/@sum/@avg of a collection.
    mutating func number(on root: EvalClass, aggregate: Bool = false) -> EvalOperand {
        let catalog = EvalPaths.catalog(root)
        let choice = byte()
        if !aggregate {
            if choice % 5 == 4 { return .stringSize(catalog.name) }
            return .count(pickPath(catalog.collections), size: choice & 1 != 0)
        }
        let collection = pickPath(catalog.numberCollections)
        let kind: EvalAggregate = [.min, .max, .sum, .avg][choice % 4]
        guard let elements = collection.type.objectClass else { return .aggregate(kind, collection, element: nil) }
        return .aggregate(kind, collection, element: pickPath(EvalPaths.catalog(elements).elementNumbers))
    }

    /// A link path against a stored object or nil: `==`, `!=`, `IN {…}`, `IN %@`, `%@ IN path`.
    private mutating func links(_ catalog: EvalPaths.Catalog, _ compare: (EvalQuantifier?, EvalOperand, EvalTest) -> EvalPredicate) -> EvalPredicate {
        let path = pickPath(catalog.links)
        let quantifier = self.quantifier(.path(path))
        let form = byte() % 4
        func objectOrNil() -> EvalWritten? { byte() % 5 == 4 ? written(.null) : object(path.type) }
        switch form {
        case 0, 1:
            guard let constant = objectOrNil() else { return .constant(true, style: 0) }
            return compare(quantifier, .path(path), .constant(form == 0 ? .equal : .notEqual, EvalOptions(), constant, flipped: false))
        case 2:
            // IN %@ (an array of objects and nils, one argument) or IN {…} (an argument each).
            let asArgument = argumentsLeft > 0 && byte() & 1 == 1
            if asArgument { argumentsLeft -= 1 }
            var values: [EvalWritten] = []
            for _ in 0..<(byte() % 3) {
                let index = byte()
                if asArgument {
                    let object: EvalValue = path.type == .dog ? .dog(index % graph.dogs.count) : .person(index % graph.persons.count)
                    values.append(element(index % 5 == 4 ? .null : object))
                } else {
                    guard let constant = objectOrNil() else { break }
                    values.append(constant)
                }
            }
            return compare(quantifier, .path(path), .list(EvalOptions(), values, asArgument: asArgument))
        default:
            guard path.isMultiple, let constant = objectOrNil() else { return .constant(false, style: 0) }
            return compare(nil, .path(path), .member(EvalOptions(), constant))
        }
    }
}

extension EvalPaths.Catalog {
    var multipleValues: [EvalPath] { values.filter(\.isMultiple) }
    var objectCollections: [EvalPath] { collections.filter { $0.type.objectClass != nil } }
    /// Collections @min/@max/@sum/@avg apply to: of objects (with a numeric element path) or
    /// of numbers.
    var numberCollections: [EvalPath] { collections.filter { $0.type.objectClass != nil || $0.type.isNumeric } }
    /// The one-step `name`.
    var name: EvalPath { values.first { $0.steps == [.property("name")] }! }
    /// Single-valued paths that may be null: through a to-one link, a map key, an optional
    /// property, the embedded address.
    var nullable: [EvalPath] { singleValues.filter { $0.steps.count > 1 || $0.steps == [.property("weight")] } + addresses }
}
