// Realm's aggregates on results: `sum`, `min`, `max` and `average` of a property over the
// matches, computed from the stored values without making objects (see `QueryAggregator`:
// nulls are skipped, the sum of nothing is 0, the others of nothing are nil).

extension Results {
    /// The sum of a numeric property over the objects (0 when there are none): `dogs.sum(of: \.age)`.
    /// Integers add in 64 bits and wrap, then convert back to the property's type (wrapping).
    /// - Complexity: O(n); reads only that property of each object.
    public func sum<T: AddableType>(of keyPath: KeyPath<Element, T>) -> T {
        sum(path: singlePath(keyPath))
    }

    /// The smallest value of a numeric or date property (nil when there are none, or every value is nil).
    /// - Complexity: O(n); reads only that property of each object.
    public func min<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? {
        aggregate(.min, path: singlePath(keyPath))
    }

    /// The largest value of a numeric or date property (nil when there are none, or every value is nil).
    /// - Complexity: O(n); reads only that property of each object.
    public func max<T: MinMaxType>(of keyPath: KeyPath<Element, T>) -> T? {
        aggregate(.max, path: singlePath(keyPath))
    }

    /// The mean of a numeric property (nil when there are no non-nil values).
    /// - Complexity: O(n); reads only that property of each object.
    public func average<T: AddableType>(of keyPath: KeyPath<Element, T>) -> Double? {
        aggregate(.average, path: singlePath(keyPath))
    }

    /// The mean of a `Decimal128` property, in decimal (nil when there are no non-nil values).
    public func average(of keyPath: KeyPath<Element, Decimal128>) -> Decimal128? {
        aggregate(.average, path: singlePath(keyPath))
    }

    /// The sum of the numeric property named `property` (a key path through to-one links
    /// works too), as `T`.
    /// - Precondition: the name is a numeric property (Realm raises an exception otherwise).
    ///   Use ``sum(checkingProperty:)`` for a name from input.
    public func sum<T: AddableType>(ofProperty property: String) -> T {
        trapping { try sum(checkingProperty: property) }
    }

    /// The smallest value of the numeric or date property named `property`.
    /// - Precondition: as ``sum(ofProperty:)``; ``min(checkingProperty:)`` throws instead.
    public func min<T: MinMaxType>(ofProperty property: String) -> T? {
        trapping { try min(checkingProperty: property) }
    }

    /// The largest value of the numeric or date property named `property`.
    /// - Precondition: as ``sum(ofProperty:)``; ``max(checkingProperty:)`` throws instead.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? {
        trapping { try max(checkingProperty: property) }
    }

    /// The mean of the numeric property named `property`.
    /// - Precondition: as ``sum(ofProperty:)``; ``average(checkingProperty:)`` throws instead.
    public func average<T: AddableType>(ofProperty property: String) -> T? {
        trapping { try average(checkingProperty: property) }
    }

    /// As ``sum(ofProperty:)``, with a bad name reported as an error.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` when `property` is not a numeric property.
    public func sum<T: AddableType>(checkingProperty property: String) throws -> T {
        sum(path: try aggregatePath(property, allowsDates: false))
    }

    /// As ``min(ofProperty:)``, with a bad name reported as an error.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` when `property` is not a numeric or date property.
    public func min<T: MinMaxType>(checkingProperty property: String) throws -> T? {
        aggregate(.min, path: try aggregatePath(property, allowsDates: true))
    }

    /// As ``max(ofProperty:)``, with a bad name reported as an error.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` when `property` is not a numeric or date property.
    public func max<T: MinMaxType>(checkingProperty property: String) throws -> T? {
        aggregate(.max, path: try aggregatePath(property, allowsDates: true))
    }

    /// As ``average(ofProperty:)``, with a bad name reported as an error.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` when `property` is not a numeric property.
    public func average<T: AddableType>(checkingProperty property: String) throws -> T? {
        aggregate(.average, path: try aggregatePath(property, allowsDates: false))
    }

    // MARK: Helpers

    private func sum<T: AddableType>(path: QueryPath) -> T {
        aggregate(.sum, path: path) ?? T._strataDefault()
    }

    private func aggregate<T: _Persistable>(_ kind: QueryAggregate, path: QueryPath) -> T? {
        AggregateConversion.value(query.aggregate(kind, of: path), as: T.self)
    }

    /// The path to the property `name` names, which must hold numbers (or dates).
    private func aggregatePath(_ name: String, allowsDates: Bool) throws -> QueryPath {
        let path = try singlePath(name)
        var owner: ObjectSchema? = schema
        var type: PropertyType?
        for step in path.steps {
            guard case .property(let index, let target, _) = step, let current = owner else { type = nil; break }
            type = current.properties[index].type.type
            owner = target
        }
        switch type {
        case .int?, .int8?, .int16?, .int32?, .int64?, .float?, .double?, .decimal128?: return path
        case .date? where allowsDates: return path
        default:
            throw StrataError(.invalidQuery, "'\(name)' is not a \(allowsDates ? "numeric or date" : "numeric") property of \(schema.className)")
        }
    }
}
