// MemoryFileSystem test controls: the sync counter and hook, and direct access to file
// contents (read, corrupt, replace) for tests and fuzzers. All `@_spi(Testing)`: a client sees
// them only through `@_spi(Testing) import StrataStorage`.
//
// Thread safety: each method runs under the file system's lock, like the rest of the type.

extension MemoryFileSystem {
    /// The number of syncs so far (file syncs plus directory syncs), counting ones a hook made
    /// fail.
    @_spi(Testing) public var syncCount: Int { locked { $0.syncCount } }

    /// Sets (or, with `nil`, removes) a function called before each sync takes effect. If it
    /// throws, the sync fails with that error and changes nothing. It runs outside the file
    /// system's lock and may call back into it (``crashImage(_:)``, …).
    @_spi(Testing) public func setSyncHook(_ hook: (@Sendable (SyncEvent) throws -> Void)?) {
        locked { $0.syncHook = hook }
    }

    /// The current contents of the file at `path`, or `nil` when there is none.
    @_spi(Testing) public func contents(of path: String) -> [UInt8]? {
        let path = MemoryPath.normalize(path)
        return locked { state in state.entries[path].map { state.inodes[$0]!.current } }
    }

    /// Overwrites bytes of a file's current *and* durable contents (extending them with zeros
    /// if needed), to simulate corruption on disk. Does nothing when the file does not exist.
    @_spi(Testing) public func corrupt(path: String, at offset: Int, with bytes: [UInt8]) {
        let path = MemoryPath.normalize(path)
        locked { state in
            guard let id = state.entries[path] else { return }
            Self.overwrite(&state.inodes[id]!.current, at: offset, with: bytes[...])
            Self.overwrite(&state.inodes[id]!.durable, at: offset, with: bytes[...])
        }
    }

    /// Creates or replaces a file whose contents and name are durable at once (creating its
    /// directories too).
    @_spi(Testing) public func setContents(_ bytes: [UInt8], of path: String) {
        let path = MemoryPath.normalize(path)
        locked { state in
            Self.addDirectories(MemoryPath.parent(of: path), to: &state)
            state.commitOperations { $0.paths.contains(path) }
            if let id = state.entries[path] {
                state.inodes[id] = MemoryInode(current: bytes, durable: bytes)
                state.durableEntries[path] = id
            } else {
                let id = state.newInode(MemoryInode(current: bytes, durable: bytes))
                state.entries[path] = id
                state.durableEntries[path] = id
            }
        }
    }
}
