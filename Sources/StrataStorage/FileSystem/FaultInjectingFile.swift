// FaultInjectingFile: a file opened through FaultInjectingFileSystem; its writes and syncs can
// be made to fail by the file system's fault rules.
//
// Thread safety: holds only immutable references; the wrapped file and the fault rules are
// themselves thread safe.

/// A wrapped ``StorageFile`` whose writes and syncs consult the fault rules.
final class FaultInjectingFile: StorageFile {
    private let base: any StorageFile
    private let fileSystem: FaultInjectingFileSystem

    init(base: any StorageFile, fileSystem: FaultInjectingFileSystem) {
        self.base = base
        self.fileSystem = fileSystem
    }

    /// The wrapped file's path.
    var path: String { base.path }

    /// Forwards to the wrapped file.
    /// - Throws: what the wrapped file throws.
    func size() throws -> Int { try base.size() }

    /// Forwards to the wrapped file.
    /// - Throws: what the wrapped file throws.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws -> Int {
        try base.read(into: buffer, at: offset)
    }

    /// Forwards to the wrapped file.
    /// - Throws: what the wrapped file or `body` throws.
    func visitBytes(
        at offset: Int, count: Int, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        try base.visitBytes(at: offset, count: count, body)
    }

    /// Writes unless a `.write` fault fires; a short-write fault writes its prefix first.
    /// - Throws: an injected ``StrataError`` `.io`, or what the wrapped file throws.
    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws {
        guard let effect = fileSystem.check(.write, paths: [path]) else {
            return try base.write(bytes, at: offset)
        }
        if case .shortWrite(let keeping, _) = effect {
            let kept = min(max(keeping, 0), bytes.count)
            if kept > 0 { try base.write(UnsafeRawBufferPointer(rebasing: bytes[..<kept]), at: offset) }
        }
        throw FaultInjectingFileSystem.injectedError(.write, path: path, effect: effect)
    }

    /// Syncs unless a `.sync` fault fires (then nothing is synced).
    /// - Throws: an injected ``StrataError`` `.io`, or what the wrapped file throws.
    func sync() throws {
        try fileSystem.failIfInjected(.sync, path: path)
        try base.sync()
    }

    /// Forwards to the wrapped file.
    /// - Throws: what the wrapped file throws.
    func truncate(to size: Int) throws { try base.truncate(to: size) }

    /// Forwards to the wrapped file.
    /// - Throws: what the wrapped file throws.
    func close() throws { try base.close() }
}
