import StrataStorage

extension Database {
    /// Moves the database to the newest commit, as Realm's `refresh()`: every `Results`,
    /// collection and object read through it then sees that commit. A read-only database
    /// (``Configuration/readOnly``) first reads what the writing process committed since it last
    /// looked.
    ///
    /// ```swift
    /// let reader = try Database(configuration: readOnlyConfiguration)
    /// // … another thread or process writes …
    /// if reader.refresh() { print(reader.objects(Dog.self).count) }
    /// ```
    ///
    /// When the version read changes, the database's own observers (``observe(on:_:)``) are
    /// told ``Notification/didChange``. A failure to read the other process's commits (damage a
    /// writer in progress cannot explain, an I/O error) leaves the database at the version it
    /// read, and is kept in ``readFailure``. Inside a write transaction, or a notification
    /// callback, the database stays at its version and this returns false.
    ///
    /// Thread safety: call it on the thread (or actor) that uses this live database. A frozen
    /// database never moves: it returns false.
    ///
    /// - Returns: whether the database now reads a newer version than before the call.
    /// - Complexity: O(1) for a writable database; for a read-only one O(b) in the bytes
    ///   committed since the last refresh, plus O(k log n) for the k keys they change, and O(n) in
    ///   the database's size after the writer compacted it.
    @discardableResult
    public func refresh() -> Bool {
        guard !isFrozen else { return false }
        if let follower = shared.follower {
            follower.catchUp()
            if let failure = follower.lastFailure {
                noteReadFailure(failure, reading: "the commits of the writing process")
            }
        }
        return advanceAndNotify()
    }

    /// Ends the database's read, as Realm's `invalidate()`: the objects read through it become
    /// invalidated (``ObjectBase/isInvalidated`` is true, and they stay so), an open write is
    /// cancelled (``cancelWrite()``), and the next read starts at the newest commit. `Results`
    /// and collections of objects that are still valid read that new version. Nothing is read
    /// again until then, so a database that will not be read for a while holds no old version
    /// (and no replaced files) alive. A no-op on a frozen database.
    ///
    /// Thread safety: call it on the thread (or actor) that uses this live database.
    /// - Complexity: O(1), plus what ``cancelWrite()`` does.
    public func invalidate() {
        guard !isFrozen else { return }
        cancelWrite()
        endRead()
    }

    /// Whether the database moves to the newest commit between the jobs of the actor it was
    /// opened on, after another commit lands (never inside a job), as Realm's `autorefresh`.
    /// Default true. A database opened off any actor (and a thawed one) never autorefreshes: it
    /// moves at its writes, ``refresh()`` and ``invalidate()`` whatever this says. Setting it to
    /// false leaves the database at its version until one of those; its observers are then told
    /// ``Notification/refreshRequired`` when another commit lands.
    ///
    /// Thread safety: on the thread (or actor) that uses this live database. Always false for a
    /// frozen database.
    public var autorefresh: Bool {
        get { events?.autorefresh ?? false }
        set { events?.autorefresh = newValue }
    }

    /// Advances to the newest commit and, when the commit read changed, tells this database's
    /// observers. Returns whether it changed.
    @discardableResult
    func advanceAndNotify() -> Bool {
        guard advance() else { return false }
        events?.post(.didChange)
        return true
    }
}
