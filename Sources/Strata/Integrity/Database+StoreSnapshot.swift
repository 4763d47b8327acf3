import StrataStorage

extension Database {
    /// The store's version this database reads (the open write's base, inside a write): for
    /// tests that compare the stored records themselves.
    /// - Complexity: O(1).
    @_spi(Testing) public var storeSnapshot: Snapshot {
        _ = readVersion()
        return transaction?.base ?? snapshot
    }
}
