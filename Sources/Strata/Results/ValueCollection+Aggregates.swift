import Foundation

/// A collection of stored values a `min()`, `max()`, `sum()` and `average()` apply to: `List`,
/// `MutableSet` (their elements) and `Map` (its values). Not API (it lets them share the
/// aggregates; it refines `Sequence` so that its `min()` and `max()` are chosen over
/// `Sequence`'s).
public protocol _ValueCollection: Sequence {
    associatedtype _AggregatedValue: _Persistable
    /// The values the aggregates read.
    var _aggregatedValues: [_AggregatedValue] { get }
}

extension List: _ValueCollection {
    /// The elements.
    public var _aggregatedValues: [Element] { Array(self) }
}

extension MutableSet: _ValueCollection {
    /// The elements.
    public var _aggregatedValues: [Element] { Array(self) }
}

extension Map: _ValueCollection {
    /// The values, in key order.
    public var _aggregatedValues: [Value] { values }
}

extension _ValueCollection {
    /// `aggregate` over the values as stored, as queries compute it (`QueryAggregator`).
    fileprivate func aggregate(_ aggregate: QueryAggregate) -> FieldValue {
        QueryAggregator.aggregate(aggregate, _aggregatedValues.map { (try? $0._strataWrite(nil)) ?? .null })
    }
}

extension _ValueCollection where _AggregatedValue: MinMaxType {
    /// The smallest value, or nil when there is none (nil values are skipped), as Realm's.
    /// - Complexity: O(n).
    public func min() -> _AggregatedValue? { AggregateConversion.value(aggregate(.min), as: _AggregatedValue.self) }

    /// The largest value, or nil when there is none (nil values are skipped), as Realm's.
    /// - Complexity: O(n).
    public func max() -> _AggregatedValue? { AggregateConversion.value(aggregate(.max), as: _AggregatedValue.self) }
}

extension _ValueCollection where _AggregatedValue: AddableType {
    /// The sum of the values (0 when there are none; nil values are skipped), as Realm's.
    /// - Complexity: O(n).
    public func sum() -> _AggregatedValue {
        AggregateConversion.value(aggregate(.sum), as: _AggregatedValue.self) ?? _AggregatedValue._strataRead(.int(0), nil)
    }

    /// The mean of the values, or nil when there are none (nil values are skipped), as Realm's
    /// `average()`: the result type is the caller's (`let mean: Double? = list.average()`).
    /// - Complexity: O(n).
    public func average<T: AddableType>() -> T? { AggregateConversion.value(aggregate(.average), as: T.self) }
}
