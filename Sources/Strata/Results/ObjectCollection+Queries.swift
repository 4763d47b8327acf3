import Foundation

// Queries on collections of objects, as in Realm: a managed `List`, `MutableSet` or
// `LinkingObjects` of objects, or a `Map` whose values are objects (`Map+Queries.swift`),
// answers `where { }`, `filter`, `sorted`, `distinct` and the aggregates with live `Results`
// (or the aggregate's value). The results read the collection
// from its owner again at every evaluation (once per database version), so they follow both
// the collection's changes and its objects'. A list's results keep the list's order and its
// duplicates unless sorted.

/// A collection of objects that can be queried: `List`, `MutableSet` and `LinkingObjects` of
/// `Object`s, and `Map`s of optional `Object`s (their values). Not API (it gives the query
/// methods below to all four).
public protocol _ObjectCollection {
    associatedtype _ResultElement: Object
    /// The collection's objects as live results, in its order.
    /// - Precondition: the collection is managed (Realm raises an exception otherwise).
    var _results: Results<_ResultElement> { get }
}

extension List: _ObjectCollection where Element: Object {
    public var _results: Results<Element> { Results(collection: binding) }
}

extension MutableSet: _ObjectCollection where Element: Object {
    public var _results: Results<Element> { Results(collection: binding) }
}

extension LinkingObjects: _ObjectCollection {
    public var _results: Results<Element> { Results(collection: binding) }
}

extension Results {
    /// The objects a managed collection's property holds, as live results.
    init(collection binding: CollectionBinding?) {
        guard let binding else {
            preconditionFailure("\(Element.className()): only a managed collection can be queried")
        }
        let step = QueryStep.make(for: binding.property, in: binding.database.schemas)
        guard let target = step.targetSchema else {
            preconditionFailure("\(binding.name) does not hold objects")
        }
        self.init(database: binding.database, schema: target, source: .collection(owner: binding.owner, step: step))
    }
}

extension _ObjectCollection {
    /// The collection's objects that match `isIncluded`, as live results:
    /// `person.dogs.where { $0.age > 3 }`.
    /// - Precondition: the collection is managed.
    /// - Complexity: O(n) in the collection's size per evaluation, once per database version.
    public func `where`(_ isIncluded: (Query<_ResultElement>) -> Query<Bool>) -> Results<_ResultElement> {
        _results.where(isIncluded)
    }

    /// The collection's objects that match a predicate in NSPredicate format (see
    /// ``Results/filter(_:_:)``).
    /// - Precondition: the collection is managed, and the predicate valid for its objects'
    ///   class; ``filter(checking:_:)`` throws for a bad predicate instead.
    public func filter(_ predicateFormat: String, _ args: Any...) -> Results<_ResultElement> {
        _results.filter(predicateFormat, arguments: args)
    }

    /// As ``filter(_:_:)``, with a bad predicate reported as an error.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` describing the problem.
    public func filter(checking predicateFormat: String, _ args: Any...) throws -> Results<_ResultElement> {
        try _results.filtered(predicateFormat, args)
    }

    /// The collection's objects ordered by the property named `keyPath` (see
    /// ``Results/sorted(byKeyPath:ascending:)``).
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) -> Results<_ResultElement> {
        _results.sorted(byKeyPath: keyPath, ascending: ascending)
    }

    /// As ``sorted(byKeyPath:ascending:)``, with an unknown name reported as an error.
    /// - Throws: ``/StrataStorage/StrataError`` `.invalidQuery` when the name is not a key path to one value.
    public func sorted(checkingKeyPath keyPath: String, ascending: Bool = true) throws -> Results<_ResultElement> {
        try _results.sorted(checkingKeyPath: keyPath, ascending: ascending)
    }

    /// The collection's objects ordered by a property.
    public func sorted<V: Comparable>(by keyPath: KeyPath<_ResultElement, V>, ascending: Bool = true) -> Results<_ResultElement> {
        _results.sorted(by: keyPath, ascending: ascending)
    }

    /// The collection's objects ordered by `sortDescriptors`, the first deciding first.
    public func sorted<S: Sequence>(by sortDescriptors: S) -> Results<_ResultElement> where S.Element == SortDescriptor {
        _results.sorted(by: sortDescriptors)
    }

    /// The first object of each distinct combination of the named properties' values.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<_ResultElement> where S.Element == String {
        _results.distinct(by: keyPaths)
    }

    /// The first object of each distinct combination of the key paths' values.
    public func distinct<S: Sequence>(by keyPaths: S) -> Results<_ResultElement> where S.Element == PartialKeyPath<_ResultElement> {
        _results.distinct(by: keyPaths)
    }

    /// The sum of a numeric property over the collection's objects (see ``Results/sum(of:)``).
    public func sum<T: AddableType>(of keyPath: KeyPath<_ResultElement, T>) -> T { _results.sum(of: keyPath) }
    /// The smallest value of a numeric or date property (nil when empty).
    public func min<T: MinMaxType>(of keyPath: KeyPath<_ResultElement, T>) -> T? { _results.min(of: keyPath) }
    /// The largest value of a numeric or date property (nil when empty).
    public func max<T: MinMaxType>(of keyPath: KeyPath<_ResultElement, T>) -> T? { _results.max(of: keyPath) }
    /// The mean of a numeric property (nil when empty).
    public func average<T: AddableType>(of keyPath: KeyPath<_ResultElement, T>) -> Double? { _results.average(of: keyPath) }

    /// The sum of the numeric property named `property` (see ``Results/sum(ofProperty:)``).
    public func sum<T: AddableType>(ofProperty property: String) -> T { _results.sum(ofProperty: property) }
    /// The smallest value of the property named `property`.
    public func min<T: MinMaxType>(ofProperty property: String) -> T? { _results.min(ofProperty: property) }
    /// The largest value of the property named `property`.
    public func max<T: MinMaxType>(ofProperty property: String) -> T? { _results.max(ofProperty: property) }
    /// The mean of the property named `property`.
    public func average<T: AddableType>(ofProperty property: String) -> T? { _results.average(ofProperty: property) }
}
