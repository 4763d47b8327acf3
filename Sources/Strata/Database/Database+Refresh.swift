import StrataStorage

extension Database {
    /// Catches the database up with the newest commit, as Realm's `refresh()`: a read-only
    /// database (``Configuration/readOnly``) reads what the writing process committed since it
    /// last looked, and its change observers are told of it; a writable one already sees every
    /// commit of this process and only moves to the newest.
    ///
    /// ```swift
    /// let reader = try Database(configuration: readOnlyConfiguration)
    /// // … another process writes …
    /// if reader.refresh() { print(reader.objects(Dog.self).count) }
    /// ```
    ///
    /// A failure to read the other process's commits (damage a writer in progress cannot
    /// explain, an I/O error) leaves the database at the version it read, and is kept in
    /// ``readFailure``. Inside a write transaction, or a notification callback, the database
    /// stays at its version and this returns false.
    ///
    /// Thread safety: call it on the thread (or actor) that uses this live database. A frozen
    /// database never moves: it returns false.
    ///
    /// - Returns: whether the database now reads a newer version than before the call.
    /// - Complexity: O(b) in the bytes committed since the last refresh, plus O(k log n) for the
    ///   k keys they change; O(n) in the database's size after the writer compacted it.
    @discardableResult
    public func refresh() -> Bool {
        guard !isFrozen else { return false }
        let before = snapshot.sequence
        if let follower = shared.follower {
            follower.catchUp()
            if let failure = follower.lastFailure {
                noteReadFailure(failure, reading: "the commits of the writing process")
            }
        }
        _ = readVersion()
        return snapshot.sequence != before
    }
}
