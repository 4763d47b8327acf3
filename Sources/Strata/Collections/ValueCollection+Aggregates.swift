import Foundation

/// A collection of stored values a `min()`, `max()`, `sum()` and `average()` apply to: `List` and
/// `MutableSet`. Not API (it lets both share the aggregates).
public protocol _ValueCollection: Sequence where Element: _Persistable {}

extension List: _ValueCollection {}
extension MutableSet: _ValueCollection {}

extension _ValueCollection {
    /// `aggregate` over the elements' stored values, as queries compute it (`QueryAggregator`).
    fileprivate func aggregate(_ aggregate: QueryAggregate) -> FieldValue {
        QueryAggregator.aggregate(aggregate, map { (try? $0._strataWrite(nil)) ?? .null })
    }
}

extension _ValueCollection where Element: MinMaxType {
    /// The smallest element, or nil when there is none (nil elements are skipped), as Realm's.
    /// - Complexity: O(n).
    public func min() -> Element? { AggregateConversion.value(aggregate(.min), as: Element.self) }

    /// The largest element, or nil when there is none (nil elements are skipped), as Realm's.
    /// - Complexity: O(n).
    public func max() -> Element? { AggregateConversion.value(aggregate(.max), as: Element.self) }
}

extension _ValueCollection where Element: AddableType {
    /// The sum of the elements (0 when there are none; nil elements are skipped), as Realm's.
    /// - Complexity: O(n).
    public func sum() -> Element {
        AggregateConversion.value(aggregate(.sum), as: Element.self) ?? Element._strataRead(.int(0), nil)
    }

    /// The mean of the elements, or nil when there are none (nil elements are skipped), as
    /// Realm's `average()`: the result type is the caller's (`let mean: Double? = list.average()`).
    /// - Complexity: O(n).
    public func average<T: AddableType>() -> T? { AggregateConversion.value(aggregate(.average), as: T.self) }
}
