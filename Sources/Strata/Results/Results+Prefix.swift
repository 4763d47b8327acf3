// The first objects of results in order: `prefix(_:)` and `first` ask the query for only that
// many, so a sorted query keeps the best k as it meets them (as SQLite's `ORDER BY … LIMIT k`)
// instead of sorting every match.

extension Results {
    /// The first `maxLength` objects in order (all of them when there are fewer), as a slice of
    /// these results, as Realm's `prefix(_:)`:
    ///
    /// ```swift
    /// let youngest = db.objects(Dog.self).sorted(by: \.age).prefix(10)
    /// ```
    ///
    /// They are exactly the first `maxLength` of the whole order (ties in storage-key order, or
    /// the collection's order), and the slice reads them without ordering the rest.
    /// - Precondition: `maxLength >= 0`, as for any collection's `prefix(_:)`.
    /// - Complexity: for sorted results, O(n log k) for k = `maxLength` (O(n log n) when k is
    ///   not smaller than n); O(n) otherwise; once per database version.
    public func prefix(_ maxLength: Int) -> Slice<Results> {
        precondition(maxLength >= 0, "Can't take a prefix of negative length from a collection")
        return Slice(base: self, bounds: 0..<query.evaluateFirst(maxLength))
    }

    /// The first object in order, or nil when there is none.
    /// - Complexity: O(n) for sorted results (the smallest is kept as the matches are met, not
    ///   sorted); O(1) for every object of a class in key order outside a write.
    public var first: Element? {
        query.evaluateFirst(1) == 1 ? self[0] : nil
    }
}
