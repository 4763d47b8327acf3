// `ObjectProfile size [persons]`: the bytes on disk of the same objects in Strata and in SQLite
// (through GRDB), after compaction and after `VACUUM`, in two scenarios: as loaded, and after
// half of the objects were updated once (ObjectWorkloads+Size.swift, SizeModels.swift).
//
// Strata: the objects written (`.none`, 10,000 per write), `Database.compact()`, the database
// released (which closes the store), opened and released once more (a read-write open removes
// any replaced segment still on disk), then every file in its directory summed. Also the size
// of `writeCopy(toDirectory:)`, which rewrites every live record, the active segment's too.
// SQLite: a `DatabasePool` (WAL, synchronous=NORMAL), `VACUUM`, `PRAGMA wal_checkpoint(TRUNCATE)`,
// then the database file, -wal and -shm summed while the pool is open.

import Foundation
import GRDB
import ObjectWorkloads
import StorageWorkloads
import Strata

/// The bytes of one database's files.
struct SizeFigure {
    var files: [(name: String, bytes: Int)]
    var bytes: Int { files.reduce(0) { $0 + $1.bytes } }

    init(directory: String) throws { files = try ObjectWorkloads.fileSizes(in: directory) }

    /// The files, for the log: "name bytes, …".
    var listing: String { files.map { "\($0.name) \($0.bytes)" }.joined(separator: ", ") }
}

/// Strata's figures of one scenario.
struct StrataSizes {
    var compacted: SizeFigure
    var copy: SizeFigure
}

let sizeObjectTypes: [ObjectBase.Type] = [StrataSizeDog.self, StrataSizePerson.self]

/// Runs `body` on the Strata database in `directory`, compacts it, closes it, and returns the
/// files after a reopen and close, and those of a `writeCopy`.
func strataSizeScenario(_ label: String, in directory: String, _ body: (Strata.Database) throws -> Void) throws -> StrataSizes {
    do {
        let db = try ObjectWorkloads.openStrata(directory, durability: .none, objectTypes: sizeObjectTypes)
        let timing = try ObjectWorkloads.timed { try body(db) }
        let written = try SizeFigure(directory: directory)
        let report = try db.compact()
        print(String(format: "Strata %@: %.3f s; %d bytes as written; compact(): %@", label, timing.wall, written.bytes, report.description))
    }
    print("  after compact() and close: \(try SizeFigure(directory: directory).listing)")
    do { _ = try ObjectWorkloads.openStrata(directory, durability: .none, objectTypes: sizeObjectTypes) }
    let compacted = try SizeFigure(directory: directory)
    print("  after a reopen and close:  \(compacted.listing)")
    let copy = try scratch("profile-size-copy") { copyDirectory in
        do {
            let db = try ObjectWorkloads.openStrata(directory, durability: .none, objectTypes: sizeObjectTypes)
            try db.writeCopy(toDirectory: URL(fileURLWithPath: copyDirectory), encryptionKey: nil)
        }
        return try SizeFigure(directory: copyDirectory)
    }
    print("  writeCopy: \(copy.listing)")
    printKeyspaceSizes(in: directory, fileBytes: compacted.bytes)
    return StrataSizes(compacted: compacted, copy: copy)
}

/// The live records of the closed Strata database in `directory`, by keyspace.
func printKeyspaceSizes(in directory: String, fileBytes: Int) {
    guard let sizes = try? ObjectWorkloads.strataKeyspaceSizes(in: directory) else {
        print("  (keyspace sizes: the store did not open read-only)")
        return
    }
    for size in sizes {
        print(String(
            format: "  keyspace %2u %-13@ %9d records: %11d bytes = headers %10d + keys %10d + values %11d (%.1f B/record)",
            size.keyspace, size.role, size.records, size.recordBytes, size.headerBytes, size.keyBytes, size.valueBytes,
            Double(size.recordBytes) / Double(max(size.records, 1))))
    }
    let live = sizes.reduce(0) { $0 + $1.recordBytes }
    print("  live records \(live) bytes; the other \(fileBytes - live) bytes of the files: segment headers, commit records, dead records, MANIFEST, hints")
}

/// Vacuums and checkpoints the SQLite database of `pool`, and returns its files.
func sqliteSizeAfterVacuum(_ label: String, _ pool: DatabasePool, in directory: String, timing: ObjectWorkloads.Timing) throws -> SizeFigure {
    let written = try SizeFigure(directory: directory)
    try pool.vacuum()
    let checkpoint = try pool.writeWithoutTransaction { try $0.checkpoint(.truncate) }
    let figure = try SizeFigure(directory: directory)
    let pages = try pool.read { db in
        try [("page_size", "PRAGMA page_size"), ("page_count", "PRAGMA page_count"), ("freelist_count", "PRAGMA freelist_count")]
            .map { "\($0.0) \(try Int.fetchOne(db, sql: $0.1) ?? -1)" }.joined(separator: ", ")
    }
    print(String(format: "SQLite %@: %.3f s; %d bytes as written; after VACUUM and checkpoint(TRUNCATE) (%d of %d WAL frames): %@ (%@)",
                 label, timing.wall, written.bytes, checkpoint.checkpointedFrameCount, checkpoint.walFrameCount, figure.listing, pages))
    return figure
}

/// The `size` mode: both databases, both scenarios, and the table of figures.
func sizeComparison(persons: Int) throws {
    let objects = persons + ObjectWorkloads.sizeDogCount(persons: persons)
    print("Size on disk: \(persons) persons + \(objects - persons) dogs = \(objects) objects")
    let strata = try scratch("profile-size-strata") { directory in
        (try strataSizeScenario("load", in: directory) { try ObjectWorkloads.strataSizeLoad(persons: persons, into: $0) },
         try strataSizeScenario("update of half", in: directory) { try ObjectWorkloads.strataSizeUpdate(persons: persons, in: $0) })
    }
    let sqlite = try scratch("profile-size-sqlite") { directory in
        let pool = try ObjectWorkloads.openGRDBPool(directory, schema: ObjectWorkloads.createSizeTables)
        let load = try ObjectWorkloads.timed { try ObjectWorkloads.grdbSizeLoad(persons: persons, into: pool) }
        let loaded = try sqliteSizeAfterVacuum("load", pool, in: directory, timing: load)
        let update = try ObjectWorkloads.timed { try ObjectWorkloads.grdbSizeUpdate(persons: persons, in: pool) }
        let updated = try sqliteSizeAfterVacuum("update of half", pool, in: directory, timing: update)
        try pool.close()
        print("  SQLite after the pool closed: \(try SizeFigure(directory: directory).listing)")
        return (loaded, updated)
    }
    print("| scenario | Strata compact() | B/object | Strata writeCopy | B/object | SQLite VACUUM | B/object | compact() / SQLite | writeCopy / SQLite |")
    print("|:--|--:|--:|--:|--:|--:|--:|--:|--:|")
    for (name, s, q) in [("loaded", strata.0, sqlite.0), ("half updated once", strata.1, sqlite.1)] {
        let perObject = { (bytes: Int) in String(format: "%.1f", Double(bytes) / Double(objects)) }
        print(String(
            format: "| %@ | %d | %@ | %d | %@ | %d | %@ | %.2f× | %.2f× |", name, s.compacted.bytes, perObject(s.compacted.bytes),
            s.copy.bytes, perObject(s.copy.bytes), q.bytes, perObject(q.bytes),
            Double(s.compacted.bytes) / Double(q.bytes), Double(s.copy.bytes) / Double(q.bytes)))
    }
}
