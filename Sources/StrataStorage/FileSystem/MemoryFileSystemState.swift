// The data model behind MemoryFileSystem: inodes with durable contents plus unsynced
// operations, current and durable directory entries, and the log of unsynced directory changes.
//
// Thread safety: plain values; MemoryFileSystem only touches them while holding its lock.

/// A write or truncate not yet made durable by a sync.
enum PendingFileOperation {
    case write(offset: Int, bytes: [UInt8])
    case truncate(size: Int)
}

/// One file's contents: what a crash would keep for sure, and what happened since.
struct MemoryInode {
    /// The contents as the process sees them now.
    var current: [UInt8] = []
    /// The contents as of the last sync.
    var durable: [UInt8] = []
    /// Writes and truncates since the last sync, in order.
    var pending: [PendingFileOperation] = []
}

/// A change to directory entries that no `syncDirectory` has made durable yet.
enum DirectoryOperation {
    case create(path: String, inode: Int)
    case remove(path: String, inode: Int)
    case rename(from: String, to: String, inode: Int)

    var inode: Int {
        switch self {
        case .create(_, let inode), .remove(_, let inode), .rename(_, _, let inode): inode
        }
    }

    var paths: [String] {
        switch self {
        case .create(let path, _), .remove(let path, _): [path]
        case .rename(let from, let to, _): [from, to]
        }
    }

    func touches(directory: String) -> Bool {
        paths.contains { MemoryPath.parent(of: $0) == directory }
    }

    /// Applies the change to a set of entries. Removals only remove the entry when it still
    /// names the same inode, so a replayed subset of operations stays consistent.
    func apply(to entries: inout [String: Int]) {
        switch self {
        case .create(let path, let inode):
            entries[path] = inode
        case .remove(let path, let inode):
            if entries[path] == inode { entries[path] = nil }
        case .rename(let from, let to, let inode):
            if entries[from] == inode { entries[from] = nil }
            entries[to] = inode
        }
    }
}

/// Everything a MemoryFileSystem holds.
struct MemoryFileSystemState {
    var inodes: [Int: MemoryInode] = [:]
    var nextInode = 1
    /// Path to inode, as the process sees it now.
    var entries: [String: Int] = [:]
    /// Path to inode, as a crash would leave it for sure.
    var durableEntries: [String: Int] = [:]
    /// Directory changes since the durable entries, in order.
    var pendingDirectoryOperations: [DirectoryOperation] = []
    /// Directories (durable as soon as created).
    var directories: Set<String> = []
    var syncCount = 0
    var syncHook: (@Sendable (MemoryFileSystem.SyncEvent) throws -> Void)?
    var locks: Set<String> = []
    /// Open file handles, by handle number, to their inode.
    var openHandles: [Int: Int] = [:]
    var nextHandle = 1

    func directoryExists(_ path: String) -> Bool {
        path == "/" || path == "" || directories.contains(path)
    }

    /// Adds a new directory entry, logging it as not yet durable.
    mutating func link(_ path: String, inode: Int) {
        entries[path] = inode
        pendingDirectoryOperations.append(.create(path: path, inode: inode))
    }

    mutating func newInode(_ inode: MemoryInode = MemoryInode()) -> Int {
        let id = nextInode
        nextInode += 1
        inodes[id] = inode
        return id
    }

    /// Makes the directory's entries durable: every pending change in `directory` is applied to
    /// the durable entries, together with every earlier change it depends on (one that shares a
    /// path or an inode with it), so replaying the remaining changes still reaches the current
    /// entries.
    mutating func commitDirectory(_ directory: String) {
        commitOperations { $0.touches(directory: directory) }
    }

    /// Makes durable the pending directory changes `selected` picks, and every earlier change
    /// they depend on.
    mutating func commitOperations(where selected: (DirectoryOperation) -> Bool) {
        let operations = pendingDirectoryOperations
        var commit = [Bool](repeating: false, count: operations.count)
        var paths: Set<String> = []
        var inodes: Set<Int> = []
        for index in operations.indices.reversed() {
            let operation = operations[index]
            if selected(operation) || inodes.contains(operation.inode)
                || operation.paths.contains(where: paths.contains)
            {
                commit[index] = true
                paths.formUnion(operation.paths)
                inodes.insert(operation.inode)
            }
        }
        var remaining: [DirectoryOperation] = []
        for (index, operation) in operations.enumerated() {
            if commit[index] {
                operation.apply(to: &durableEntries)
            } else {
                remaining.append(operation)
            }
        }
        pendingDirectoryOperations = remaining
    }
}

/// Path handling for the in-memory file system.
enum MemoryPath {
    /// Drops empty and `.` components and any trailing `/`; keeps a leading `/`.
    static func normalize(_ path: String) -> String {
        let components = path.split(separator: "/").filter { $0 != "." }
        let joined = components.joined(separator: "/")
        return path.hasPrefix("/") ? "/" + joined : joined
    }

    /// The directory holding a (normalized) path: `/` or `` for top-level names.
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component of a (normalized) path.
    static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
