import Strata

/// Every object and property of a sweep database, read through the public API and rendered
/// as text, so that two databases compare by a digest.
public enum SweepRender {
    /// One line per object, in primary-key order; reads every property of every object.
    public static func render(_ db: Database) -> [String] {
        var lines: [String] = []
        for item in db.objects(SweepItem.self).sorted(by: { $0.id < $1.id }) {
            let attributes = item.attributes.map { "\($0.key)=\($0.value)" }.sorted()
            lines.append(
                "item \(item.id) \(item.name) \(item.score) friend \(item.friend?.id ?? -1) "
                    + "others \(item.others.map(\.id)) place \(item.place?.city ?? "-") "
                    + "attributes \(attributes) extra \(item.extra) friendOf \(item.friendOf.map(\.id).sorted())")
        }
        lines.append("mark \(db.object(ofType: SweepMark.self, forPrimaryKey: 0)?.commit ?? 0)")
        return lines
    }

    /// The damage the reads of `db` found and reported instead of trapping, if any.
    public static func readFailure(_ db: Database) -> String? {
        db.readFailure.map { "\($0)" }
    }

    /// A 64-bit FNV-1a digest of `render(db)`.
    public static func digest(_ db: Database) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for line in render(db) {
            for byte in line.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
            hash = (hash ^ 10) &* 0x100_0000_01b3
        }
        return hash
    }
}
