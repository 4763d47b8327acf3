import Foundation

// Evaluates a query's expression tree against an object: walks key paths through links,
// embedded objects, collections, maps and backlinks, applies the comparison to every value a
// path reaches (ANY, ALL or NONE of them), and computes collection operators. Reads go through
// the database view the evaluator was made for; an evaluator without one sees no linked
// objects. Nothing here traps on stored values: a value of an unexpected kind compares false.

/// An object a query reads: its key (nil for an embedded object) and its fields in property
/// order (a query over a class decodes only the properties it reads; the others are null).
struct QueryObject {
    var key: ObjectKey?
    var fields: [FieldValue]
}

/// The evaluator. A value; use it on the thread that uses its database.
struct QueryEvaluator {
    let database: Database?

    /// Whether `object` satisfies `node`, reading linked objects through no database.
    static func matches(_ node: QueryNode, _ fields: [FieldValue]) -> Bool {
        QueryEvaluator(database: nil).matches(node, QueryObject(key: nil, fields: fields))
    }

    func matches(_ node: QueryNode, _ object: QueryObject) -> Bool {
        switch node {
        case .constant(let value): return value
        case .and(let lhs, let rhs): return matches(lhs, object) && matches(rhs, object)
        case .or(let lhs, let rhs): return matches(lhs, object) || matches(rhs, object)
        case .not(let inner): return !matches(inner, object)
        case .compare(let comparison): return holds(comparison, object)
        }
    }

    private func holds(_ comparison: QueryComparison, _ object: QueryObject) -> Bool {
        // The common case, a property of the object against a constant, without building arrays.
        if comparison.op != .between, case .path(let path) = comparison.lhs, path.steps.count == 1,
           case .property(let index, _, false) = path.steps[0], case .constant(let constant) = comparison.rhs {
            let value = index < object.fields.count ? object.fields[index] : .null
            let result = Self.compare(comparison.op, value, constant, comparison.options)
            return comparison.quantifier == .none ? !result : result
        }
        let left = values(comparison.lhs, object)
        let test = Self.valueTest(comparison.op, values(comparison.rhs, object), comparison.options)
        switch comparison.quantifier {
        case .any: return left.contains(where: test)
        case .all: return left.allSatisfy(test)
        case .none: return !left.contains(where: test)
        }
    }

    /// Whether one left value satisfies `op` against the right side's values: for `between`,
    /// lies within the two; otherwise holds for at least one of them.
    static func valueTest(_ op: QueryOperator, _ right: [FieldValue], _ options: QueryStringOptions) -> (FieldValue) -> Bool {
        if op == .between {
            guard right.count == 2 else { return { _ in false } }
            return { compare(.greaterOrEqual, $0, right[0], []) && compare(.lessOrEqual, $0, right[1], []) }
        }
        if right.count == 1 {
            let constant = right[0]
            return { compare(op, $0, constant, options) }
        }
        return { value in right.contains { compare(op, value, $0, options) } }
    }

    /// The test of a comparison whose left side is one property value and whose right side is
    /// constants (see `ColumnPredicate`), quantifier applied.
    static func singleValueTest(_ comparison: QueryComparison) -> (FieldValue) -> Bool {
        let right: [FieldValue]
        switch comparison.rhs {
        case .constant(let value): right = [value]
        case .list(let values): right = values
        default: right = []
        }
        let test = valueTest(comparison.op, right, comparison.options)
        return comparison.quantifier == .none ? { !test($0) } : test
    }

    /// The values an expression has for `object`: one for a constant or a single-valued path,
    /// any number for a list or a many-valued path.
    func values(_ value: QueryValue, _ object: QueryObject) -> [FieldValue] {
        switch value {
        case .constant(let constant): return [constant]
        case .list(let list): return list
        case .path(let path): return Self.flatten(walk(path, from: object, resolvingLast: false))
        case .aggregate(let aggregate, let collection, let element):
            return [self.aggregate(aggregate, collection: collection, element: element, object)]
        case .subqueryCount(let collection, let predicate):
            let count = walk(collection, from: object, resolvingLast: true).reduce(0) { count, item in
                guard case .object(let element) = item else { return count }
                return matches(predicate, element) ? count + 1 : count
            }
            return [.int(Int64(count))]
        case .predicate(let node): return [.bool(matches(node, object))]
        }
    }

    // MARK: Collection operators

    private func aggregate(_ aggregate: QueryAggregate, collection: QueryPath, element: QueryPath?, _ object: QueryObject) -> FieldValue {
        let items = walk(collection, from: object, resolvingLast: element != nil)
        if aggregate == .count, element == nil {
            guard collection.isMultiple else {
                // `name.@count`: the length of a String or Data.
                switch items.first {
                case .value(.string(let text)): return .int(Int64(text.utf8.count))
                case .value(.data(let data)): return .int(Int64(data.count))
                case .map(let entries, _): return .int(Int64(entries.count))
                default: return .int(0)
                }
            }
            return .int(Int64(Self.flatten(items).count))
        }
        var values: [FieldValue] = []
        if let element {
            for case .object(let child) in items {
                values += Self.flatten(walk(element, from: child, resolvingLast: false))
            }
        } else {
            values = Self.flatten(items)
        }
        return QueryAggregator.aggregate(aggregate, values)
    }

    // MARK: Key paths

    /// What a path reaches from `object`. Linked and embedded objects are read for every step
    /// but the last; for the last only when `resolvingLast` (a comparison wants the link
    /// itself, a subquery the objects).
    func walk(_ path: QueryPath, from object: QueryObject, resolvingLast: Bool) -> [QueryItem] {
        var items: [QueryItem] = [.object(object)]
        for (position, step) in path.steps.enumerated() {
            let resolve = resolvingLast || position < path.steps.count - 1
            var next: [QueryItem] = []
            let isLast = position == path.steps.count - 1
            for item in items { apply(step, to: item, resolve: resolve, isLast: isLast, into: &next) }
            items = next
        }
        return items
    }

    private func apply(_ step: QueryStep, to item: QueryItem, resolve: Bool, isLast: Bool, into out: inout [QueryItem]) {
        switch (step, item) {
        case (.property(let index, let target, let isMultiple), .object(let object)):
            guard index < object.fields.count else { return out.append(.value(.null)) }
            // A single-valued property that ends the path is its value whole: a mixed list or
            // map is not the values it holds (`mixed == 4` is false for [4], as Realm's, and
            // as the column and fast paths compare).
            if !isMultiple, isLast { return out.append(element(object.fields[index], target: target, resolve: resolve)) }
            expand(object.fields[index], target: target, resolve: resolve, into: &out)
        case (.backlinks(let origin, let propertyID), .object(let object)):
            guard let key = object.key, let database else { return }
            for source in database.linkingSources(of: key, originClassID: origin.classID, propertyID: propertyID) {
                out.append(element(.link(source), target: origin, resolve: resolve))
            }
        case (.property, .map(let entries, let target)), (.backlinks, .map(let entries, let target)):
            // A path through a map of objects goes through each of its values.
            for entry in entries {
                apply(step, to: element(entry.value, target: target, resolve: true), resolve: resolve, isLast: isLast, into: &out)
            }
        case (.property, .value(.null)):
            out.append(.value(.null))  // through a nil to-one link: null
        case (.mapValue(let key), .map(let entries, let target)):
            guard let entry = entries.first(where: { $0.key.utf8.elementsEqual(key.utf8) }) else { return out.append(.value(.null)) }
            out.append(element(entry.value, target: target, resolve: resolve))
        case (.mapKeys, .map(let entries, _)):
            out += entries.map { .value(.string($0.key)) }
        case (.valueType, .value(let value)):
            out.append(.value(.string(Self.typeName(of: value))))
        case (.valueType, .object):
            out.append(.value(.string("object")))
        default:
            return  // a step that does not apply to what the path reached: no values
        }
    }

    /// A property's field as items: a collection's elements, a map whole (a later step may
    /// want one key), anything else as itself.
    private func expand(_ field: FieldValue, target: ObjectSchema?, resolve: Bool, into out: inout [QueryItem]) {
        switch field {
        case .list(let elements), .set(let elements):
            for value in elements {
                let item = element(value, target: target, resolve: resolve)
                if case .link = value, case .value(.null) = item { continue }  // a link to nothing
                out.append(item)
            }
        case .map(let entries):
            out.append(.map(entries, target: target))
        default:
            out.append(element(field, target: target, resolve: resolve))
        }
    }

    /// A linked or embedded object as an object item when `resolve` (a link to an object that
    /// does not exist: null), anything else as a value.
    private func element(_ value: FieldValue, target: ObjectSchema?, resolve: Bool) -> QueryItem {
        guard resolve, let target else { return .value(value) }
        switch value {
        case .link(let key):
            guard let fields = database?.loadFields(key, schema: target) else { return .value(.null) }
            return .object(QueryObject(key: key, fields: fields))
        case .embedded(_, _, let fields):
            return .object(QueryObject(key: nil, fields: target.positionalFields(fields)))
        default:
            return .value(value)
        }
    }

    /// The values of items: a map's values, an object's link (an embedded object has none).
    static func flatten(_ items: [QueryItem]) -> [FieldValue] {
        var values: [FieldValue] = []
        values.reserveCapacity(items.count)
        for item in items {
            switch item {
            case .value(let value): values.append(value)
            case .map(let entries, _): values += entries.map(\.value)
            case .object(let object): values.append(object.key.map(FieldValue.link) ?? .null)
            }
        }
        return values
    }

    /// The name `@type` gives a mixed value's kind, as Realm's.
    static func typeName(of value: FieldValue) -> String {
        switch value {
        case .null: return "null"
        case .bool: return "bool"
        case .int: return "int"
        case .float: return "float"
        case .double: return "double"
        case .string: return "string"
        case .data: return "binary"
        case .date: return "timestamp"
        case .decimal: return "decimal128"
        case .uuid: return "uuid"
        case .objectId: return "objectId"
        case .link, .embedded: return "object"
        case .list: return "array"
        case .set: return "set"
        case .map: return "dictionary"
        }
    }
}

/// What a key path reaches at one step.
enum QueryItem {
    case object(QueryObject)
    case value(FieldValue)
    /// A map, kept whole until a step picks a key or the path ends; `target` is its objects'
    /// schema when it holds links or embedded objects.
    case map([FieldValue.MapEntry], target: ObjectSchema?)
}

extension QueryEvaluator {
    /// Whether `lhs op rhs` holds for two single values.
    static func compare(_ op: QueryOperator, _ lhs: FieldValue, _ rhs: FieldValue, _ options: QueryStringOptions) -> Bool {
        switch op {
        case .equal, .notEqual:
            let equal: Bool
            if !options.isEmpty, case .string(let a) = lhs, case .string(let b) = rhs {
                equal = StringFolding.fold(a, options).utf8.elementsEqual(StringFolding.fold(b, options).utf8)
            } else {
                equal = FieldOrder.equal(lhs, rhs)
            }
            return op == .equal ? equal : !equal
        case .less, .lessOrEqual, .greater, .greaterOrEqual:
            // As in Realm, null is not less or greater than anything.
            if lhs.isNull || rhs.isNull { return false }
            guard let order = FieldOrder.compare(lhs, rhs) else { return false }
            switch op {
            case .less: return order < 0
            case .lessOrEqual: return order <= 0
            case .greater: return order > 0
            default: return order >= 0
            }
        case .beginsWith, .endsWith, .contains, .like:
            guard case .string(let a) = lhs, case .string(let b) = rhs else { return false }
            // By UTF-8 bytes, as equality, keys and indexes compare (no canonical equivalence).
            let text = StringFolding.fold(a, options), pattern = StringFolding.fold(b, options)
            switch op {
            case .beginsWith: return text.utf8.starts(with: pattern.utf8)
            case .endsWith: return text.utf8.reversed().starts(with: pattern.utf8.reversed())
            case .contains: return StringFolding.utf8(of: text, contains: pattern)
            default: return LikePattern.matches(text, pattern, caseInsensitive: false)
            }
        case .between:
            return false  // takes a list; see `holds`
        }
    }
}

/// `[c]` and `[d]` folding (diacritics removed, `é` → `e`, with Foundation's folding; case by
/// `lowercased()`), and the byte-wise search the string operators use.
enum StringFolding {
    /// Whether `pattern`'s UTF-8 bytes occur in `text`'s (the empty pattern occurs everywhere).
    static func utf8(of text: String, contains pattern: String) -> Bool {
        var text = text, pattern = pattern
        // Native strings: search their bytes in place, without copying them per comparison.
        return text.withUTF8 { haystack in
            pattern.withUTF8 { needle in
                guard let first = needle.first else { return true }
                guard needle.count <= haystack.count else { return false }
                for start in 0...(haystack.count - needle.count) where haystack[start] == first {
                    if haystack[start..<(start + needle.count)].elementsEqual(needle) { return true }
                }
                return false
            }
        }
    }

    static func fold(_ text: String, _ options: QueryStringOptions) -> String {
        var folded = text
        if options.contains(.diacriticInsensitive) { folded = folded.folding(options: .diacriticInsensitive, locale: nil) }
        if options.contains(.caseInsensitive) { folded = folded.lowercased() }
        return folded
    }
}
