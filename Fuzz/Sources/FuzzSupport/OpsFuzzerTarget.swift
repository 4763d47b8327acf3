// The OpsFuzzer target: bytes become a sequence of object operations, reopens and crashes
// (OpsFuzzerDecoder.swift), applied both to a Strata `Database` and to a plain in-memory model
// (OpsFuzzerModel.swift) that must agree after every step.
//
// The database runs on a MemoryFileSystem (through the @_spi(Testing) storage options) with
// durability `.full`, 4 KiB segments (so writes roll segments and compaction has sealed ones to
// rewrite) and a compression threshold of 256 bytes. Rules, each a trap (a finding) when broken:
// - a write commits, or rolls back with the error the model predicts (`.primaryKeyExists`,
//   `.invalidValue` for a value nested too deep) or the harness's own; no other error, and
//   nothing of a rolled-back write remains;
// - after every step the database holds exactly the model's objects, each with the model's
//   values (strings compared by bytes, doubles by bits), and every LinkingObjects lists exactly
//   the objects that link there;
// - a frozen view taken before a write or a compaction still holds the model before it;
// - no read finds damage (`readFailure` stays nil); references held across an edit of `spots`
//   or a delete read the same object, or are invalidated when it went (OpsFuzzerTarget+Held);
// - equality on the indexed `name` finds what a scan finds and what the model holds;
// - `compact()` succeeds; a reopen and a crash (a `crashImage` with the chosen policy, then an
//   open of the image) succeed and lose nothing: every write was acknowledged at `.full`;
// - on reopen the old Database is gone (nothing keeps it alive), so the open is a real one.
//
// Seeds: Corpus/OpsFuzzer, written by Tools/MakeSeeds.

import Foundation
@_spi(Testing) import Strata
@_spi(Testing) import StrataStorage

/// The database side of one run.
final class OpsRun {
    var fileSystem = MemoryFileSystem()
    var database: Database?
    var context = ""
    /// Set when a crash image lost the write it was taken in (the run ends there).
    var endedBefore: OpsModel?

    init() {
        database = open()
    }

    var db: Database { database! }

    func open() -> Database {
        var configuration = Database.Configuration(
            directory: URL(fileURLWithPath: "/db"), objectTypes: [OpsItem.self, OpsNote.self, OpsSpot.self],
            durability: .full)
        configuration.storageOptions.fileSystem = fileSystem
        configuration.storageOptions.segmentSize = 4096
        configuration.storageOptions.compressionThreshold = 256
        do {
            return try Database(configuration: configuration)
        } catch {
            fail("opening the database threw \(error)")
        }
    }

    func fail(_ message: String) -> Never {
        fatalError("OpsFuzzer, \(context): \(message)")
    }

    /// Closes the database (it must be released) and opens it on `fileSystem` again.
    func reopen(on fileSystem: MemoryFileSystem) {
        weak let old = database
        database = nil
        if old != nil { fail("the Database outlived its last reference: the reopen would reuse its store") }
        self.fileSystem = fileSystem
        database = open()
    }

    /// Runs `step`; for a write or a compaction, a frozen view taken before it must still hold
    /// `previous` afterwards. False when the run ends with the step (a crash image that lost
    /// the write).
    func perform(_ step: OpsStep, checkingFrozenViewOf previous: OpsModel) -> Bool {
        switch step {
        case .write, .compact:
            let frozen = db.freeze()
            defer {
                let stored = state(of: frozen)
                if stored.items != previous.items || stored.notes != previous.notes {
                    compare(stored.items, previous.items, "frozen view: item")
                    compare(stored.notes, previous.notes, "frozen view: note #")
                }
            }
            return perform(step)
        default:
            return perform(step)
        }
    }

    /// Runs `step`; false when the run ends with it (a crash image that lost the write).
    func perform(_ step: OpsStep) -> Bool {
        switch step {
        case .write(let actions, let end): write(actions, end)
        case .query(let index): query(index)
        case .compact:
            do {
                let report = try db.compact()
                if KnownIssues.verbose { note("  compacted: \(report)") }
            } catch {
                fail("compact() threw \(error)")
            }
        case .reopen: reopen(on: fileSystem)
        case .crash(let crash):
            reopen(on: fileSystem.crashImage(crash.policy))
        case .crashDuringWrite(let actions, let before, let sync, let crash):
            return crashDuringWrite(actions, before: before, sync: sync, crash)
        case .crashDuringCompact(let sync, let crash):
            let image = imageAtSync(sync, crash) {
                do { try db.compact() } catch { fail("compact() threw \(error)") }
            }
            reopen(on: image.fileSystem)
        }
        return true
    }

    /// Equality on the indexed name, against a scan and the model (checked by `check`).
    func query(_ index: Int) {
        let name = OpsPools.strings[index]
        let indexed = db.objects(OpsItem.self).where { $0.name == name }.map(\.id)
        let scanned = db.objects(OpsItem.self).filter("FALSEPREDICATE OR name == %@", name).map(\.id)
        if Set(indexed) != Set(scanned) || indexed.count != scanned.count {
            fail("items named \(name.debugDescription): the index finds \(indexed.sorted()), a scan \(scanned.sorted())")
        }
        let notes = db.objects(OpsNote.self).where { $0.name == name }.map(\.serial)
        let scannedNotes = db.objects(OpsNote.self).filter("FALSEPREDICATE OR name == %@", name).map(\.serial)
        if Set(notes) != Set(scannedNotes) || notes.count != scannedNotes.count {
            fail("notes named \(name.debugDescription): the index finds \(notes.sorted()), a scan \(scannedNotes.sorted())")
        }
        lastQuery = (index, Set(indexed), Set(notes))
    }

    /// What the last query found (name index, item ids, note serials), for `check`.
    var lastQuery: (Int, Set<Int>, Set<Int>)?
}

/// The error a `.throwing` write's block throws.
struct OpsRollback: Error {}

/// Runs one OpsFuzzer input (see OpsFuzzerDecoder.swift). Traps on a finding. Returns -1 (do
/// not add to the corpus) for inputs skipped as known issues, else 0.
public func runOpsInput(_ input: [UInt8]) -> CInt {
    OpsWarmUp.done()
    var decoder = OpsDecoder(input)
    let steps = decoder.decode()
    if KnownIssues.skip, KnownIssues.opsTripsKnownIssue(steps.map(\.0)) {
        if KnownIssues.verbose { note("  skipped: known issue") }
        return -1
    }
    runOpsSteps(steps, verbose: KnownIssues.verbose)
    return 0
}

/// Runs decoded steps on a new database, checking it against the model after each.
func runOpsSteps(_ steps: [(OpsStep, OpsModel)], verbose: Bool) {
    let run = OpsRun()
    var previous = OpsModel()
    for (index, (step, model)) in steps.enumerated() {
        run.context = "step \(index) \(step)"
        if verbose { note("  \(run.context)") }
        let goesOn = run.perform(step, checkingFrozenViewOf: previous)
        run.check(goesOn ? model : run.lostWriteModel)
        if !goesOn { break }
        previous = model
    }
}

/// Model classes are reflected once per process and cached; that happens with LeakSanitizer
/// paused (see `withLeakCheckingDisabled`), on a throwaway database that runs every kind of
/// operation once.
enum OpsWarmUp {
    static let ran: Bool = {
        withLeakCheckingDisabled {
            var decoder = OpsDecoder([0, 1, 0, 1, 2, 3, 4, 1, 1, 1, 1, 1, 1, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10,
                                      14, 2, 14, 1, 15, 0, 15, 3, 1, 2])
            runOpsSteps(decoder.decode(), verbose: false)
        }
        return true
    }()

    static func done() { _ = ran }
}
