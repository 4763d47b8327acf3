import StrataStorage

// Pass 4 of the integrity check: the backlink records (keyspace 1, format in
// Database+Backlinks.swift) must list exactly the links the object records hold, both ways:
// every link has its entry in its target's record, every entry has its link.

extension IntegrityChecker {
    mutating func checkBacklinkRecords() {
        var expected = expectedBacklinks
        for item in snapshot.entries(in: ObjectFormat.backlinkKeyspace) {
            guard let target = Self.backlinkTarget(of: item.key) else {
                report.add(.undecodableBacklinks, "backlink record key \(item.key) is shorter than a class id")
                continue
            }
            let stored: [Backlink]
            do {
                stored = try snapshot.withValue(of: item) { try Database.decodeBacklinkRecord($0) }
            } catch {
                report.add(.undecodableBacklinks, "the backlink record of \(describe(target)): \(error)")
                expected[target] = nil
                continue
            }
            report.backlinksChecked += stored.count
            let links = expected.removeValue(forKey: target) ?? []
            for backlink in Set(stored).subtracting(links) {
                report.add(.extraBacklink, "the backlink record of \(describe(target)) says \(describe(backlink.source)) links to it through \(describe(property: backlink.propertyID, of: backlink.source.classID)), but that object holds no such link")
            }
            for backlink in links.subtracting(stored) {
                reportMissing(backlink, to: target)
            }
        }
        for (target, links) in expected {
            for backlink in links { reportMissing(backlink, to: target) }
        }
    }

    private mutating func reportMissing(_ backlink: Backlink, to target: ObjectKey) {
        report.add(.missingBacklink, "\(describe(backlink.source)) links to \(describe(target)) through \(describe(property: backlink.propertyID, of: backlink.source.classID)), but the backlink record of \(describe(target)) does not list it")
    }

    /// The object a backlink record's key names: class id u32 big-endian, then its key.
    static func backlinkTarget(of key: StorageKey) -> ObjectKey? {
        let bytes = key.bytes
        guard bytes.count >= 4 else { return nil }
        return ObjectKey(classID: bigEndianUInt32(bytes[...]), key: StorageKey(bytes.dropFirst(4)))
    }

}
