import StrataStorage

// Reading the matches without materialising them: aggregates over one key path and the
// position of the first match of a further predicate. Each decodes only the properties it reads.

extension ObjectQuery {
    /// `aggregate` over the values `path` reaches from every match (see `QueryAggregator`).
    /// - Complexity: O(n) in the number of matches.
    func aggregate(_ aggregate: QueryAggregate, of path: QueryPath) -> FieldValue {
        if !ordering.hasDistinct, let index = ColumnPredicate.property(of: .path(path)),
           let (columns, matches) = columnMatches(also: [index]) {
            let column = columns.column(index)
            var values: [FieldValue] = []
            values.reserveCapacity(column.count)
            for (position, value) in column.enumerated() where matches[position] { values.append(value) }
            return QueryAggregator.aggregate(aggregate, values)
        }
        let evaluator = QueryEvaluator(database: database)
        var values: [FieldValue] = []
        forEachMatch(reading: wantedFields { wanted in path.forEachProperty { wanted[$0] = true } }) { _, object in
            values += QueryEvaluator.flatten(evaluator.walk(path, from: object, resolvingLast: false))
            return true
        }
        return QueryAggregator.aggregate(aggregate, values)
    }

    /// The position of the first match that also satisfies `node`, or nil.
    /// - Complexity: O(n) in the number of matches.
    func firstIndex(matching node: QueryNode) -> Int? {
        let evaluator = QueryEvaluator(database: database)
        var found: Int?
        forEachMatch(reading: wantedFields { wanted in node.forEachProperty { wanted[$0] = true } }) { position, object in
            guard evaluator.matches(node, object) else { return true }
            found = position
            return false
        }
        return found
    }

    /// The position of the first match whose key is `key`, or nil.
    func firstIndex(of key: ObjectKey) -> Int? {
        rows.firstIndex { $0.key == key }
    }

    /// Calls `body` with each match's position and fields (those `wanted` flags, at least)
    /// until it returns false.
    private func forEachMatch(reading wanted: [Bool], _ body: (Int, QueryObject) -> Bool) {
        for (position, row) in rows.enumerated() {
            let fields = database.fields(of: row.source, schema: schema, only: wanted)
            guard body(position, QueryObject(key: row.key, fields: fields)) else { return }
        }
    }
}
