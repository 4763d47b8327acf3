import Foundation

// Typed queries through collections: `$0.dogs.age > 3` (ANY dog), `$0.dogs.count`,
// `$0.nicknames.contains("Annie")`, `$0.scores["math"] > 5`, `$0.owners.count == 0`.

/// A collection property a query can go through: `List`, `MutableSet`, `LinkingObjects`. Not
/// API (it names the element type for the typed query builder).
public protocol _QueryCollection {
    associatedtype _QueryElement
}

extension List: _QueryCollection { public typealias _QueryElement = Element }
extension MutableSet: _QueryCollection { public typealias _QueryElement = Element }
extension LinkingObjects: _QueryCollection { public typealias _QueryElement = Element }

extension Query where T: _QueryCollection {
    /// A property of the collection's objects: comparisons hold when ANY object satisfies them.
    public subscript<V>(dynamicMember keyPath: KeyPath<T._QueryElement, V>) -> Query<V> where T._QueryElement: ObjectBase {
        _appending(keyPath)
    }

    /// The number of elements.
    public var count: Query<Int> {
        Query<Int>(value: _aggregate(.count), database: _database)
    }

    /// The collection holds `element` (an object: the same stored object).
    public func contains(_ element: T._QueryElement) -> Query<Bool> where T._QueryElement: _Persistable {
        _comparison(.equal, .constant(Query._constant(element)))
    }

    /// The collection holds one of `elements`.
    public func containsAny<S: Sequence>(in elements: S) -> Query<Bool> where S.Element == T._QueryElement, T._QueryElement: _Persistable {
        var constants: [FieldValue] = []
        for element in elements { constants.append(Query._constant(element)) }
        return _comparison(.equal, .list(constants))
    }

    /// The smallest element (null when empty).
    public var min: Query<T._QueryElement> { Query<T._QueryElement>(value: _aggregate(.min), database: _database) }
    /// The largest element (null when empty).
    public var max: Query<T._QueryElement> { Query<T._QueryElement>(value: _aggregate(.max), database: _database) }
    /// The sum of the elements (0 when empty).
    public var sum: Query<T._QueryElement> { Query<T._QueryElement>(value: _aggregate(.sum), database: _database) }
    /// The mean of the elements (null when empty).
    public var avg: Query<Double> { Query<Double>(value: _aggregate(.average), database: _database) }

    func _aggregate(_ aggregate: QueryAggregate) -> QueryValue {
        .aggregate(aggregate, collection: _path ?? QueryPath(), element: nil)
    }
}

/// A map property a query can go through. Not API.
public protocol _QueryMap {
    associatedtype _QueryValue
}

extension Map: _QueryMap { public typealias _QueryValue = Value }

extension Query where T: _QueryMap {
    /// The value for `key` (null when the map has none).
    public subscript(key: String) -> Query<T._QueryValue> {
        Query<T._QueryValue>(value: .path((_path ?? QueryPath()).appending(.mapValue(key: key))), database: _database)
    }

    /// The map's keys: comparisons hold when ANY key satisfies them.
    public var keys: Query<String> {
        Query<String>(value: .path((_path ?? QueryPath()).appending(.mapKeys)), database: _database)
    }

    /// The map's values: comparisons hold when ANY value satisfies them.
    public var values: Query<T._QueryValue> { Query<T._QueryValue>(value: _value, database: _database) }

    /// The number of entries.
    public var count: Query<Int> {
        Query<Int>(value: .aggregate(.count, collection: _path ?? QueryPath(), element: nil), database: _database)
    }

    /// The map holds `value` among its values.
    public func contains(_ value: T._QueryValue) -> Query<Bool> where T._QueryValue: _Persistable {
        _comparison(.equal, .constant(Query._constant(value)))
    }
}
