@testable import StrataStorage

/// A test file system that passes every call to `forwardedTo`; a conformer implements only the
/// calls it changes.
protocol ForwardingFileSystem: FileSystem {
    var forwardedTo: any FileSystem { get }
}

extension ForwardingFileSystem {
    func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile { try forwardedTo.open(path, mode: mode) }
    func exists(_ path: String) -> Bool { forwardedTo.exists(path) }
    func contentsOfDirectory(_ path: String) throws -> [String] { try forwardedTo.contentsOfDirectory(path) }
    func createDirectory(_ path: String) throws { try forwardedTo.createDirectory(path) }
    func removeFile(_ path: String) throws { try forwardedTo.removeFile(path) }
    func rename(_ source: String, to destination: String) throws { try forwardedTo.rename(source, to: destination) }
    func syncDirectory(_ path: String) throws { try forwardedTo.syncDirectory(path) }
    func lock(_ path: String) throws -> any FileLock { try forwardedTo.lock(path) }
    func isLockHeld(_ path: String) -> Bool { forwardedTo.isLockHeld(path) }
}
