import Synchronization

// A segment file of the log: its number, its kind, its open file, and its name on disk.
//
// A SegmentFile is shared by the writer and by every snapshot that may read from it; the open
// file is closed when the last of them lets go (ARC is the reference count LevelDB keeps by
// hand in Version::Ref). Reads go through StorageFile, which is safe from any thread.
//
// Compaction replaces segments. It marks each replaced SegmentFile obsolete once the MANIFEST
// no longer names it; the file is unlinked when the last reference goes away (deinit), so a
// snapshot taken before the compaction keeps reading it. deinit runs on whichever thread drops
// the last reference (often a reader releasing a snapshot); unlinking there is one system call
// and never throws: a file left behind is not in the MANIFEST, and the next read-write open
// removes it as a leftover.

final class SegmentFile: Sendable {
    let number: UInt32
    let kind: SegmentKind
    /// How the segment's record checksums are seeded (from its header).
    let seal: RecordSeal
    let path: String
    let file: any StorageFile
    /// Set when no MANIFEST names this segment any more; then deinit unlinks the file.
    private let obsolete = Atomic<Bool>(false)
    /// Unlinks obsolete files, but only while the store that made them holds the directory
    /// lock (nil for read-only stores, which never unlink).
    private let remover: SegmentRemover?

    init(
        number: UInt32, kind: SegmentKind = .log, seal: RecordSeal, path: String, file: any StorageFile,
        remover: SegmentRemover?
    ) {
        self.number = number
        self.kind = kind
        self.seal = seal
        self.path = path
        self.file = file
        self.remover = remover
    }

    /// Marks the segment as no longer named by the MANIFEST: its file is unlinked when the last
    /// reference goes away. REQUIRES: a MANIFEST without this segment is installed (durably).
    func markObsolete() { obsolete.store(true, ordering: .releasing) }

    var isObsolete: Bool { obsolete.load(ordering: .acquiring) }

    deinit {
        try? file.close()
        if obsolete.load(ordering: .acquiring) {
            remover?.remove(path)
            remover?.remove(String(path.dropLast(4)) + ".hint")  // its hint (HintFile.swift), if any
        }
    }

    /// `000042.seg`
    static func name(for number: UInt32) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, 6 - digits.count)) + digits + ".seg"
    }

    /// The number in a segment file name, or nil when `name` is not one.
    static func number(fromName name: String) -> UInt32? {
        guard name.hasSuffix(".seg") else { return nil }
        let stem = name.dropLast(4)
        guard !stem.isEmpty, stem.allSatisfy(\.isASCII), stem.allSatisfy(\.isNumber) else { return nil }
        return UInt32(stem)
    }
}

/// Unlinks the files of obsolete segments for one read-write ``Store``, and only while that
/// store holds the directory's `LOCK`.
///
/// Why the lock matters: a snapshot may outlive its store. Once the store is closed, another
/// open (in this process or another) removes the obsolete file as a leftover and may, after a
/// later reopen, create a new segment under the same number; an unlink from the old snapshot's
/// deinit would then delete live data. So ``disable()`` runs before the store releases the
/// lock, under the same mutex as every unlink: after it, nothing is unlinked, and files still
/// pending are left for the next open to remove.
///
/// Thread-safe: the flag and the unlinks are serialized by one `Locked`.
final class SegmentRemover: Sendable {
    private let fileSystem: any FileSystem
    private let enabled = Locked(true)

    init(fileSystem: any FileSystem) {
        self.fileSystem = fileSystem
    }

    /// Unlinks `path` if the store still holds the directory lock; ignores failures.
    func remove(_ path: String) {
        enabled.withLock { enabled in
            guard enabled else { return }
            try? fileSystem.removeFile(path)
        }
    }

    /// Stops all further unlinks. Call before releasing the directory lock.
    /// Runs `body` only while removal is enabled (the store still holds the directory), and
    /// keeps `disable()` waiting until it returns.
    func whileEnabled(_ body: () throws -> Void) throws {
        try enabled.withLock { enabled in
            guard enabled else { throw StrataError(.closed, "the store was closed") }
            try body()
        }
    }

    func disable() {
        enabled.withLock { $0 = false }
    }
}
