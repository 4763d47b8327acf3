extension Database {
    /// Runs `block` in a write transaction and commits it, as ``write(_:)`` does, but waits for
    /// its turn to write by suspending the calling task instead of blocking its thread: while
    /// another writer (another `Database` of the same directory, on any thread or task) holds
    /// the writer lock, the thread is free to run other tasks.
    ///
    /// ```swift
    /// try await db.asyncWrite { try db.add(Dog()) }
    /// ```
    ///
    /// The block runs on the caller's isolation (`isolation`, filled in by the compiler: the
    /// actor the caller runs on, or none), so it may use this database and its live objects;
    /// so does the commit, whose write and `fsync` run on the caller's executor, as in
    /// ``write(_:)``. As in Realm: inside the block ``isInWriteTransaction`` is true; if the
    /// block calls ``cancelWrite()`` and leaves no write open, nothing is committed; if it
    /// throws, every change is rolled back and the error rethrown.
    ///
    /// - Parameters:
    ///   - isolation: the caller's actor; leave it to its default.
    ///   - block: the changes to make.
    /// - Returns: what `block` returns.
    /// - Throws: `CancellationError` when the task is cancelled before the write begins
    ///   (nothing is run or written); what `block` throws; ``/StrataStorage/StrataError`` `.readOnly` for a
    ///   frozen or read-only database (``Configuration/readOnly``), `.notInWriteTransaction` when a write is already open on this database, or
    ///   this task has one open on another `Database` of the same files (thrown at once: waiting
    ///   for itself would never end); the errors of ``commitWrite()``.
    /// - Complexity: the wait for the writer lock costs no thread; the rest is ``write(_:)``'s.
    @discardableResult
    public func asyncWrite<Result>(
        isolation: isolated (any Actor)? = #isolation, _ block: () throws -> Result
    ) async throws -> Result {
        try checkCanBeginWrite()
        try Task.checkCancellation()
        // Holding the lock means no write is open on this database: a write opened by code that
        // ran on this actor while the task waited held the lock, and has ended.
        try await shared.beginWriteSuspending()
        openTransaction()
        return try runInOpenWrite(block)
    }
}
