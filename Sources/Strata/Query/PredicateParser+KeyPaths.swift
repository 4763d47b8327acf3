import Foundation

// Key paths in string predicates: `name`, `dog.age`, `dogs.age` (many-valued), `address.city`,
// `owners.@count`, `@links.Person.dogs`, `dogs.@avg.age`, `scores.@allKeys`, `value.@type`,
// `scores['math']`, `$d.age` inside a SUBQUERY, and SUBQUERY(collection, $d, predicate).@count.

extension PredicateParser.State {
    /// The operand a key path names, starting from the queried class (or, for `$var.…`, from
    /// the element a SUBQUERY is looking at).
    func keyPath(_ name: String, at token: PredicateToken, via source: String? = nil) throws -> Operand {
        let shown = "'" + PredicateLexer.abbreviate(name) + "'"
        let origin = source.map { " (\($0))" } ?? ""
        var parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count <= PredicateParser.maxKeyPathDepth + 1 else {
            throw error("the key path \(shown)\(origin) is \(parts.count - 1) steps deep; a key path takes at most \(PredicateParser.maxKeyPathDepth) steps", at: token)
        }
        if let first = parts.first, first.hasPrefix("$") {
            guard let variable, first == variable.name else {
                throw error("unknown variable \(first) in \(shown)\(origin); a $ variable names the element of the SUBQUERY around it", at: token)
            }
            parts.removeFirst()
        } else if source == nil, parts.count == 1, PredicateParser.unsupportedWords.contains(name.uppercased()), schema[name] == nil {
            throw error("\(shown) is not supported in Strata predicates", at: token)
        }
        let resolved = try resolve(parts[...], from: schema, shown: parts.count == 1 ? nil : shown + origin, origin: origin, at: token)
        return Operand(value: .expression(resolved.value, resolved.kind), text: name, quoted: shown, column: token.column)
    }

    /// What `parts` reach from an object of `schema`.
    /// `named` names the whole key path in messages (nil for a plain property name), `origin`
    /// where it came from (`(argument 2 for %K)`).
    private func resolve(_ parts: ArraySlice<String>, from schema: ObjectSchema, shown named: String?, origin: String = "", at token: PredicateToken) throws -> (value: QueryValue, kind: OperandKind) {
        let shown = named ?? "'" + PredicateLexer.abbreviate(parts.joined(separator: ".")) + "'"
        var steps: [QueryStep] = []
        var current: ObjectSchema? = schema
        var kind = OperandKind(type: .object(className: schema.className), isMultiple: false)
        var rest = parts
        while let part = rest.first {
            rest = rest.dropFirst()
            switch part {
            case "@count", "@size":
                guard rest.isEmpty else { throw error("\(part) must end the key path \(shown)", at: token) }
                guard !steps.isEmpty, kind.isMultiple || kind.type == .string || kind.type == .data else {
                    throw error("\(part) applies to a list, set, map, backlinks, String or Data, not \(kind.description) in \(shown)", at: token)
                }
                return (.aggregate(.count, collection: QueryPath(steps), element: nil), OperandKind(type: .int, isMultiple: false))
            case "@min", "@max", "@sum", "@avg":
                return try aggregate(part, collection: QueryPath(steps), kind: kind, element: rest, shown: shown, at: token)
            case "@links":
                guard let target = current, rest.count >= 2 else {
                    throw error("@links needs a class and a property, as in @links.Person.dogs, in \(shown)", at: token)
                }
                let originName = rest.first!, propertyName = rest.dropFirst().first!
                rest = rest.dropFirst(2)
                guard let origin = schemas.schema(named: originName), let property = origin[propertyName], property.isStored,
                      PredicateParser.linkTarget(of: property.type.type) == target.className else {
                    throw error("\(originName).\(propertyName) is not a property that links to \(target.className), in \(shown)", at: token)
                }
                steps.append(.backlinks(origin: origin, propertyID: property.propertyID))
                current = origin
                kind = OperandKind(type: .object(className: origin.className), isMultiple: true)
            case "@allKeys":
                guard case .map = lastProperty(steps, in: schema) else { throw error("@allKeys applies to a map, in \(shown)", at: token) }
                steps.append(.mapKeys)
                kind = OperandKind(type: .string, isMultiple: true)
            case "@allValues":
                guard case .map = lastProperty(steps, in: schema) else { throw error("@allValues applies to a map, in \(shown)", at: token) }
            case "@type":
                guard kind.type == .any else { throw error("@type applies to a mixed (AnyValue) property, in \(shown)", at: token) }
                steps.append(.valueType)
                kind = OperandKind(type: .string, isMultiple: kind.isMultiple)
            default:
                guard let owner = current else {
                    throw error("'\(part)' in \(shown) follows \(kind.description), which has no properties", at: token)
                }
                guard let property = owner[part] else {
                    let within = named.map { " (in \($0))" } ?? origin
                    throw error("\(owner.className) has no property '\(PredicateLexer.abbreviate(part))'\(within)", at: token)
                }
                let step = QueryStep.make(for: property, in: schemas)
                steps.append(step)
                current = step.targetSchema
                kind = OperandKind(type: PredicateParser.valueType(of: property), isMultiple: kind.isMultiple || step.isMultiple)
            }
        }
        return (.path(QueryPath(steps)), kind)
    }

    /// `collection.@min` and the like, with the element path after the operator, if any.
    private func aggregate(_ name: String, collection: QueryPath, kind: OperandKind, element: ArraySlice<String>, shown: String, at token: PredicateToken) throws -> (value: QueryValue, kind: OperandKind) {
        guard kind.isMultiple else { throw error("\(name) applies to a list, set, map or backlinks, in \(shown)", at: token) }
        var valueType = kind.type
        var elementPath: QueryPath?
        if !element.isEmpty {
            guard case .object(let className) = kind.type, let elementSchema = schemas.schema(named: className) else {
                throw error("\(name) of \(kind.description) takes no property, in \(shown)", at: token)
            }
            let resolved = try resolve(element, from: elementSchema, shown: shown, at: token)
            guard case .path(let path) = resolved.value, !resolved.kind.isMultiple else {
                throw error("\(name) needs a single-valued property after it, in \(shown)", at: token)
            }
            elementPath = path
            valueType = resolved.kind.type
        }
        let numeric = PredicateParser.isNumeric(valueType) || valueType == .decimal128
        let ordered = numeric || valueType == .date
        guard name == "@min" || name == "@max" ? ordered : numeric else {
            throw error("\(name) needs numbers\(name == "@min" || name == "@max" ? " or dates" : ""), not \(valueType), in \(shown)", at: token)
        }
        let aggregate: QueryAggregate = ["@min": .min, "@max": .max, "@sum": .sum][name] ?? .average
        let resultType: PropertyType = aggregate == .average && valueType != .decimal128 ? .double : valueType
        return (.aggregate(aggregate, collection: collection, element: elementPath), OperandKind(type: resultType, isMultiple: false))
    }

    /// The property the last step of `steps` reads, if it is a property step.
    private func lastProperty(_ steps: [QueryStep], in root: ObjectSchema) -> PropertyType? {
        var owner: ObjectSchema? = root
        var type: PropertyType?
        for step in steps {
            guard case .property(let index, let target, _) = step, let schema = owner else {
                owner = step.targetSchema
                type = nil
                continue
            }
            type = schema.properties[index].type.type
            owner = target
        }
        return type
    }

    /// `SUBQUERY(collection, $var, predicate).@count`, after the `SUBQUERY` token.
    mutating func parseSubquery(at token: PredicateToken) throws -> Operand {
        try expect("(", "'(' after SUBQUERY")
        let collectionToken = advance()
        guard case .identifier(let collectionName) = collectionToken.kind else {
            throw error("expected a collection key path after SUBQUERY( but found \(collectionToken.quoted)", at: collectionToken)
        }
        let collection = try keyPath(collectionName, at: collectionToken)
        guard case .expression(.path(let path), let kind) = collection.value, kind.isMultiple,
              case .object(let className) = kind.type, let elementSchema = schemas.schema(named: className) else {
            throw error("SUBQUERY needs a list, set or backlinks of objects, not \(collection.quoted)", at: collectionToken)
        }
        try expect(",", "',' after the SUBQUERY collection")
        let variableToken = advance()
        guard case .identifier(let variableName) = variableToken.kind, variableName.hasPrefix("$"), !variableName.contains(".") else {
            throw error("expected a $variable in SUBQUERY but found \(variableToken.quoted)", at: variableToken)
        }
        try expect(",", "',' after the SUBQUERY variable")
        try enter()
        var inner = PredicateParser.State(tokens: tokens, arguments: arguments, schema: elementSchema, schemas: schemas)
        inner.position = position
        inner.nextArgument = nextArgument
        inner.depth = depth
        inner.variable = (variableName, elementSchema)
        let predicate = try inner.parseOr()
        position = inner.position
        nextArgument = inner.nextArgument
        depth -= 1
        try expect(")", "')' to close the SUBQUERY")
        try expect(".", "'.@count' after SUBQUERY(…)")
        let countToken = advance()
        guard case .identifier(let word) = countToken.kind, word == "@count" || word == "@size" else {
            throw error("expected @count after SUBQUERY(…). but found \(countToken.quoted)", at: countToken)
        }
        return Operand(
            value: .expression(.subqueryCount(collection: path, predicate: predicate), OperandKind(type: .int, isMultiple: false)),
            text: "SUBQUERY", quoted: token.quoted, column: token.column)
    }

    /// `map['key']` after a map operand.
    mutating func parseMapKey(_ operand: Operand) throws -> Operand {
        guard isSymbol("["), case .expression(.path(let path), let kind) = operand.value else { return operand }
        let open = advance()
        let keyToken = advance()
        guard case .string(let key) = keyToken.kind else {
            throw error("expected a quoted map key after '[' but found \(keyToken.quoted)", at: keyToken)
        }
        try expect("]", "']' to close the map key opened at column \(open.column)")
        guard case .property(let index, _, _)? = path.steps.last, let owner = ownerSchema(of: path),
              case .map(let value) = owner.properties[index].type.type else {
            throw error("\(operand.quoted) is not a map; only a map takes ['key']", at: open)
        }
        let elementKind = OperandKind(type: value.type, isMultiple: kind.isMultiple && path.steps.dropLast().contains { $0.isMultiple })
        return Operand(value: .expression(.path(path.appending(.mapValue(key: key))), elementKind),
                       text: operand.text + "['\(key)']", quoted: operand.quoted, column: operand.column)
    }

    /// The schema whose property the last step of `path` reads.
    private func ownerSchema(of path: QueryPath) -> ObjectSchema? {
        var owner: ObjectSchema? = schema
        for step in path.steps.dropLast() { owner = step.targetSchema }
        return owner
    }
}

extension PredicateParser {
    /// What one value of `property` is: a collection's element type, a link's class.
    static func valueType(of property: PropertySchema) -> PropertyType {
        switch property.type.type {
        case .list(let element), .set(let element), .map(let element): return element.type
        case .linkingObjects(let className, _): return .object(className: className)
        default: return property.type.type
        }
    }

    /// The class a property's links lead to, if it holds links.
    static func linkTarget(of type: PropertyType) -> String? {
        switch type {
        case .object(let className): return className
        case .list(let element), .set(let element), .map(let element): return linkTarget(of: element.type)
        default: return nil
        }
    }
}

extension PredicateParser {
    /// The path a sort (or distinct) key names: a stored property, through to-one links.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` naming the key path.
    static func sortPath(_ keyPath: String, schema: ObjectSchema, schemas: SchemaSet) throws -> QueryPath {
        let token = PredicateToken(kind: .identifier(keyPath), column: 1, text: keyPath)
        let state = State(tokens: [token], arguments: [], schema: schema, schemas: schemas)
        let operand = try state.keyPath(keyPath, at: token)
        guard case .expression(.path(let path), let kind) = operand.value, !path.steps.isEmpty, !kind.isMultiple else {
            throw StrataError(.invalidQuery, "'\(keyPath)' is not a property of \(schema.className) with one value to sort by")
        }
        if case .object = kind.type {
            throw StrataError(.invalidQuery, "'\(keyPath)' is a link; sort by a property of the linked object instead")
        }
        return path
    }
}
