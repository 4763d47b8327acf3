import Foundation
@_spi(Testing) import Strata

/// The small database every corruption case damages a copy of, and what it holds after each of
/// its commits.
public enum SweepFixture {
    /// The segment size of the fixture (the smallest allowed), so that it spans several
    /// segments, one of them compacted.
    public static let segmentSize = 4096

    /// Opens the sweep's database in `directory`.
    /// - Throws: what `Database.init` throws.
    public static func open(_ directory: URL, readOnly: Bool) throws -> Database {
        var configuration = Database.Configuration(directory: directory, objectTypes: sweepObjectTypes)
        configuration.storageOptions.segmentSize = segmentSize
        configuration.storageOptions.readOnly = readOnly
        return try Database(configuration: configuration)
    }

    /// Builds the fixture in `directory`: 48 items over 12 commits (adds, link, list, map and
    /// embedded edits, deletes), with a compaction after commit 6.
    /// - Returns: the digest of `SweepRender.render` after each commit, commit 0 (the empty
    ///   database with its catalog) first.
    /// - Throws: what the database throws.
    public static func build(in directory: URL) throws -> [UInt64] {
        let db = try open(directory, readOnly: false)
        var digests = [SweepRender.digest(db)]
        for commit in 1...12 {
            try db.write {
                try change(db, commit: commit)
                try db.add(mark(commit), update: .modified)
            }
            digests.append(SweepRender.digest(db))
            if commit == 6 { try db.compact() }
        }
        return digests
    }

    private static func mark(_ commit: Int) -> SweepMark {
        let mark = SweepMark()
        mark.commit = commit
        return mark
    }

    private static func change(_ db: Database, commit: Int) throws {
        if commit <= 8 {
            for id in (commit - 1) * 6..<commit * 6 { try db.add(item(id, in: db)) }
        }
        if commit > 2 {
            let first = (commit - 3) * 4
            db.object(ofType: SweepItem.self, forPrimaryKey: first)?.name = "renamed \(commit)"
            db.object(ofType: SweepItem.self, forPrimaryKey: first + 1)?.attributes["edit"] = commit
            db.object(ofType: SweepItem.self, forPrimaryKey: first + 2)?.place?.city = "moved \(commit)"
            if let gone = db.object(ofType: SweepItem.self, forPrimaryKey: first + 3) { try db.delete(gone) }
        }
    }

    private static func item(_ id: Int, in db: Database) -> SweepItem {
        let item = SweepItem()
        item.id = id
        item.name = "item \(id % 7)"
        item.score = Double(id) * 1.5
        if id > 0 { item.friend = db.object(ofType: SweepItem.self, forPrimaryKey: id / 2) }
        for other in stride(from: max(0, id - 3), to: id, by: 1) {
            if let target = db.object(ofType: SweepItem.self, forPrimaryKey: other) { item.others.append(target) }
        }
        if id % 2 == 0 {
            let place = SweepPlace()
            place.city = "city \(id)"
            item.place = place
        }
        item.attributes["id"] = id
        item.attributes["twice"] = id * 2
        item.extra = id % 3 == 0 ? .list([.int(id), .string("x\(id)")]) : .map(["k": .double(Double(id))])
        return item
    }
}
