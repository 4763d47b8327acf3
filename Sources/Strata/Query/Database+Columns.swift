import StrataStorage

extension Database {
    /// The columns of `schema` holding at least `properties` (and, with `indexingRows`, the row
    /// of each key), at this view's current version (which this does not move: the caller
    /// refreshes the view once, with `readVersion()`, so that the tables of several classes are
    /// of one version); nil inside a write (whose changes are not in the snapshot).
    /// - Complexity: O(1) when they are cached; otherwise one pass over the class's records
    ///   decoding the missing properties.
    /// `links` names link properties of `schema` whose rows in the linked class's table (given
    /// with the class's id, its rows indexed) are wanted (`ClassColumns.linkRows`).
    func columns(
        of schema: ObjectSchema, reading properties: Set<Int>, indexingRows: Bool = false,
        resolvingLinks links: [Int: (table: ClassColumns, classID: UInt32)] = [:]
    ) -> ClassColumns? {
        guard transaction == nil else { return nil }
        let version = currentVersion
        return columnCache.withLock { cache in
            var cached = cache.removeValue(forKey: schema.classID)
            let table = currentTable(&cached, of: schema, version: version)
            let missing = properties.filter { !table.hasColumn($0) }.sorted()
            if !missing.isEmpty { table.add(decodeColumns(missing, of: schema, entries: table.entries), for: missing) }
            if indexingRows { table.indexRows() }
            for (property, target) in links { table.resolveLinks(property, into: target.table, of: target.classID) }
            cache[schema.classID] = table
            return table
        }
    }

    /// Notes that an object a walk handed out was read for a plain property its walk's table has
    /// no column of (see `walkColumns(of:having:)`).
    func noteColumnMiss(_ classID: UInt32, property: Int) {
        columnDemand.withLock { _ = $0[classID, default: []].insert(property) }
    }

    /// The table a walk over every object of `schema` hands its objects out from, at the view's
    /// current version, with a column of every property such objects were read for so far; nil
    /// when `having` (the table the walk holds) has them all already, or inside a write.
    func walkColumns(of schema: ObjectSchema, having table: ClassColumns? = nil) -> ClassColumns? {
        guard transaction == nil else { return nil }
        let wanted = columnDemand.withLock { $0[schema.classID] ?? [] }
        if let table, table.version == currentVersion, wanted.allSatisfy(table.hasColumn) { return nil }
        return columns(of: schema, reading: wanted)
    }

    /// `cached` as of the view's version `version`, ready to change: itself when nothing else
    /// refers to it, else a copy; brought up to date by the commits since its version, or a new
    /// table when too much changed.
    private func currentTable(_ cached: inout ClassColumns?, of schema: ObjectSchema, version: Int) -> ClassColumns {
        if cached != nil, !isKnownUniquelyReferenced(&cached) { cached = cached?.copy() }
        guard let table = cached else { return ClassColumns(version: version, keys: snapshot.entries(in: Keyspace(schema.classID)), propertyCount: schema.properties.count) }
        if table.version == version { return table }
        let keys = snapshot.entries(in: Keyspace(schema.classID))
        let updated = table.update(to: version, keys: keys) { properties, entries in
            decodeColumns(properties, of: schema, entries: entries)
        }
        return updated ? table : ClassColumns(version: version, keys: keys, propertyCount: schema.properties.count)
    }

    /// The columns of `properties` for `entries`: each record's bytes are walked once, straight
    /// into the columns (no array of fields per object). A damaged record reads as defaults and
    /// is noted, as `decodeFields` does.
    private func decodeColumns(_ properties: [Int], of schema: ObjectSchema, entries: [Snapshot.Entry]) -> [[FieldValue]] {
        var slots = [Int](repeating: -1, count: schema.properties.count)
        for (slot, index) in properties.enumerated() { slots[index] = slot }
        let defaults = properties.map { schema.defaultFields[$0] }
        var values = properties.map { _ in [FieldValue]() }
        for slot in values.indices { values[slot].reserveCapacity(entries.count) }
        for (row, entry) in entries.enumerated() {
            do {
                try snapshot.withValue(of: entry) { bytes in
                    try RecordCodec.forEachField(bytes, schema: schema, slots: slots) { slot, value in
                        // A property twice in a record: the last one counts, as in `decodeFields`.
                        if values[slot].count == row { values[slot].append(value) } else { values[slot][row] = value }
                    }
                }
            } catch {
                noteReadFailure(error, reading: schema.className)
                for slot in values.indices where values[slot].count > row { values[slot].removeLast() }
            }
            for slot in values.indices where values[slot].count == row { values[slot].append(defaults[slot]) }
        }
        return values
    }
}

