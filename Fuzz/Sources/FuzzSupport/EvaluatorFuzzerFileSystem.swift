// The file system the EvaluatorFuzzer's databases live on: a new MemoryFileSystem per input,
// seen through a struct that forwards every call to it.
//
// Why the struct: Strata's registry of open stores (`SharedStore.open`) names a store by its
// path and, when the file system is an object, that object's identity. Through a struct the name
// is the path alone, the same for every input, so the process keeps one registry entry however
// many inputs run (the registry now also drops entries of closed stores when it registers one:
// STORE-REGISTRY-GROWTH in Regressions/README.md, fixed). Reusing one MemoryFileSystem instead
// does not work: it never frees the inodes of removed files (MEMORY-FS-INODES).

import StrataStorage

struct EvalFileSystem: FileSystem {
    let base: MemoryFileSystem

    func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile { try base.open(path, mode: mode) }
    func exists(_ path: String) -> Bool { base.exists(path) }
    func contentsOfDirectory(_ path: String) throws -> [String] { try base.contentsOfDirectory(path) }
    func createDirectory(_ path: String) throws { try base.createDirectory(path) }
    func removeFile(_ path: String) throws { try base.removeFile(path) }
    func rename(_ source: String, to destination: String) throws { try base.rename(source, to: destination) }
    func syncDirectory(_ path: String) throws { try base.syncDirectory(path) }
    func lock(_ path: String) throws -> any FileLock { try base.lock(path) }
}
