// Crashes in the middle of a write or a compaction: OpsRun takes a crash image at a chosen
// sync point (from the file system's sync hook, which runs before the sync takes effect) and
// reopens the database from it.

@_spi(Testing) import StrataStorage

extension OpsCrash {
    var policy: MemoryFileSystem.CrashPolicy {
        switch self {
        case .keepAll: .keepAll
        case .dropAll: .dropAll
        case .random(let seed): .random(seed: seed)
        }
    }
}

/// The crash image a sync hook takes (set from the hook, read after the operation).
private final class ImageBox: @unchecked Sendable {
    var image: MemoryFileSystem?
}

extension OpsRun {
    /// Runs `body` with a crash image taken at its `sync`-th sync (from 0). Returns the image
    /// and whether it was taken during `body`; when `body` syncs fewer times, the image is
    /// taken after it.
    func imageAtSync(_ sync: Int, _ crash: OpsCrash, _ body: () -> Void) -> (fileSystem: MemoryFileSystem, during: Bool) {
        let box = ImageBox()
        let fileSystem = self.fileSystem
        let target = fileSystem.syncCount + 1 + sync
        let policy = crash.policy
        fileSystem.setSyncHook { [unowned fileSystem] event in
            if event.number == target { box.image = fileSystem.crashImage(policy) }
        }
        body()
        fileSystem.setSyncHook(nil)
        if let image = box.image { return (image, true) }
        return (fileSystem.crashImage(policy), false)
    }

    /// A committing write crashed at a sync point: the image holds the model before or after
    /// it (after, when the image was taken once the write returned). False when it holds
    /// `before`: the rest of the run was decoded for `after`, so it ends.
    func crashDuringWrite(_ actions: [OpsAction], before: OpsModel, sync: Int, _ crash: OpsCrash) -> Bool {
        let image = imageAtSync(sync, crash) { write(actions, .commit) }
        reopen(on: image.fileSystem)
        let stored = state()
        if image.during, stored.items == before.items, stored.notes == before.notes {
            endedBefore = before
            return false
        }
        return true
    }

    /// The model a run that ended on a lost write holds (see `crashDuringWrite`).
    var lostWriteModel: OpsModel {
        guard let endedBefore else { fail("the run ended without a lost write") }
        return endedBefore
    }
}
