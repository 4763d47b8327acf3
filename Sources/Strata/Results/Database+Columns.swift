import StrataStorage

extension Database {
    /// The columns of `schema` holding at least `properties` (and, with `indexingRows`, the row
    /// of each key), at this view's current version; nil inside a write (whose changes are not in
    /// the snapshot).
    /// - Complexity: O(1) when they are cached; otherwise one pass over the class's records
    ///   decoding the missing properties.
    func columns(of schema: ObjectSchema, reading properties: Set<Int>, indexingRows: Bool = false) -> ClassColumns? {
        guard transaction == nil else { return nil }
        let version = readVersion()
        return columnCache.withLock { cache in
            var table = currentTable(cache[schema.classID], of: schema, version: version)
            let missing = properties.filter { table.columns[$0] == nil }.sorted()
            if !missing.isEmpty { table = table.adding(decodeColumns(missing, of: schema, entries: table.entries), for: missing) }
            if indexingRows { table = table.indexingRows() }
            cache[schema.classID] = table
            return table
        }
    }

    /// `cached` as of the view's version `version`: itself when it is of that version, else
    /// brought up to date by the commits in between, or a new empty table.
    private func currentTable(_ cached: ClassColumns?, of schema: ObjectSchema, version: Int) -> ClassColumns {
        if let cached, cached.version == version { return cached }
        let keys = snapshot.entries(in: Keyspace(schema.classID))
        if let cached, let updated = cached.updated(to: version, keys: keys, decoding: { properties, entries in
            decodeColumns(properties, of: schema, entries: entries)
        }) {
            return updated
        }
        return ClassColumns(version: version, keys: keys)
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

