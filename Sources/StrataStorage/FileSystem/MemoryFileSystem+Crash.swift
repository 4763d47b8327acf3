// Power-loss simulation for MemoryFileSystem: crash policies and `crashImage(_:)`, all
// `@_spi(Testing)` (seen through `@_spi(Testing) import StrataStorage`).
//
// Thread safety: `crashImage` reads the state under the file system's lock and builds a new,
// independent file system. `CrashPolicy` is an immutable Sendable value.

extension MemoryFileSystem {
    /// What a simulated power loss does to one unsynced write.
    @_spi(Testing) public enum UnsyncedWriteFate: Sendable, Equatable {
        /// The whole write reached the disk.
        case keep
        /// None of the write reached the disk.
        case drop
        /// Only the part of the write inside its first `keepingSectors` 512-byte sectors (on
        /// 512-byte file-offset boundaries) reached the disk: a write at 1000..<3000 torn with
        /// `keepingSectors: 1` keeps bytes 1000..<1024. Lost bytes keep their earlier content.
        case tear(keepingSectors: Int)
    }

    /// Decides which unsynced changes survive a simulated power loss.
    @_spi(Testing) public struct CrashPolicy: Sendable {
        enum Kind: Sendable {
            case keepAll
            case dropAll
            case random(seed: UInt64)
            case custom(@Sendable (String, Int) -> UnsyncedWriteFate)
        }

        let kind: Kind

        /// Every unsynced write, truncate and directory change survives.
        @_spi(Testing) public static let keepAll = CrashPolicy(kind: .keepAll)

        /// Every unsynced write and truncate is lost, and directory entries revert to their
        /// durable state.
        @_spi(Testing) public static let dropAll = CrashPolicy(kind: .dropAll)

        /// Each unsynced write is independently kept, dropped or torn at a random sector count;
        /// each unsynced truncate and each unsynced directory change (creation, removal, rename
        /// — a rename stays atomic) is independently kept or lost. The same seed on the same
        /// file system state gives the same image.
        @_spi(Testing) public static func random(seed: UInt64) -> CrashPolicy {
            CrashPolicy(kind: .random(seed: seed))
        }

        /// Asks `fate` about each unsynced write, given the file's path in the image and the
        /// write's index (0-based) among that file's unsynced writes. Unsynced truncates and
        /// directory changes are kept.
        @_spi(Testing) public static func custom(
            _ fate: @escaping @Sendable (_ path: String, _ writeIndex: Int) -> UnsyncedWriteFate
        ) -> CrashPolicy {
            CrashPolicy(kind: .custom(fate))
        }
    }

    /// Returns a new file system holding what a power loss right now would leave: the durable
    /// directory entries with the unsynced changes the policy keeps, and each file's durable
    /// contents with the unsynced writes and truncates the policy keeps, applied in order. In
    /// the image everything is durable; it has no sync hook, locks or open files, and a sync
    /// count of 0.
    @_spi(Testing) public func crashImage(_ policy: CrashPolicy) -> MemoryFileSystem {
        let image = locked { state in
            var decider = CrashDecider(policy: policy)
            var entries = state.durableEntries
            for operation in state.pendingDirectoryOperations where decider.keepDirectoryChange() {
                operation.apply(to: &entries)
            }
            var image = MemoryFileSystemState()
            image.directories = state.directories
            var imageInodes: [Int: Int] = [:]
            for (path, id) in entries.sorted(by: { $0.key < $1.key }) {
                if let existing = imageInodes[id] {
                    image.entries[path] = existing
                    continue
                }
                let contents = Self.survivingContents(of: state.inodes[id]!, path: path, &decider)
                let newID = image.newInode(MemoryInode(current: contents, durable: contents))
                imageInodes[id] = newID
                image.entries[path] = newID
            }
            image.durableEntries = image.entries
            return image
        }
        return MemoryFileSystem(state: image)
    }

    private static func survivingContents(
        of inode: MemoryInode, path: String, _ decider: inout CrashDecider
    ) -> [UInt8] {
        var contents = inode.durable
        var writeIndex = 0
        for operation in inode.pending {
            switch operation {
            case .write(let offset, let bytes):
                let fate = decider.writeFate(path: path, index: writeIndex, offset: offset,
                                             count: bytes.count)
                writeIndex += 1
                let kept: Int
                switch fate {
                case .keep: kept = bytes.count
                case .drop: kept = 0
                case .tear(let sectors):
                    let end = (offset / 512 + max(sectors, 0)) * 512
                    kept = min(bytes.count, max(0, end - offset))
                }
                overwrite(&contents, at: offset, with: bytes[..<kept])
            case .truncate(let size):
                guard decider.keepTruncate() else { continue }
                if size < contents.count {
                    contents.removeLast(contents.count - size)
                } else {
                    contents.append(contentsOf: repeatElement(0, count: size - contents.count))
                }
            }
        }
        return contents
    }
}

/// Applies a ``MemoryFileSystem/CrashPolicy``, drawing random choices in a fixed order.
private struct CrashDecider {
    let policy: MemoryFileSystem.CrashPolicy
    var random: SplitMix64

    init(policy: MemoryFileSystem.CrashPolicy) {
        self.policy = policy
        if case .random(let seed) = policy.kind {
            random = SplitMix64(seed: seed)
        } else {
            random = SplitMix64(seed: 0)
        }
    }

    mutating func keepDirectoryChange() -> Bool {
        switch policy.kind {
        case .keepAll, .custom: true
        case .dropAll: false
        case .random: random.next() & 1 == 0
        }
    }

    mutating func keepTruncate() -> Bool { keepDirectoryChange() }

    mutating func writeFate(path: String, index: Int, offset: Int, count: Int)
        -> MemoryFileSystem.UnsyncedWriteFate
    {
        switch policy.kind {
        case .keepAll: return .keep
        case .dropAll: return .drop
        case .custom(let fate): return fate(path, index)
        case .random:
            let choice = random.next() % 3
            if choice == 0 { return .keep }
            if choice == 1 || count == 0 { return .drop }
            let sectors = (offset + count - 1) / 512 - offset / 512 + 1
            return .tear(keepingSectors: Int(random.next() % UInt64(sectors)))
        }
    }
}

