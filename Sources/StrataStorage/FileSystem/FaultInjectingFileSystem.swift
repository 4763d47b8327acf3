// FaultInjectingFileSystem: wraps another file system and makes chosen operations fail
// (EIO, ENOSPC, a failed fsync, a short write), by rules injected at run time. A test double,
// `@_spi(Testing)`.
//
// Thread safety: rules and counters sit behind one `Locked` mutex; every method may be called from any
// thread at once. Whether a given operation fails is decided atomically when it starts.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A ``FileSystem`` that forwards to another and fails operations chosen by ``Fault`` rules.
/// Files it opens are wrapped too, so their writes and syncs can fail.
///
/// A test double: `@_spi(Testing)`, seen only through `@_spi(Testing) import StrataStorage`.
///
/// ```swift
/// let fs = FaultInjectingFileSystem(wrapping: MemoryFileSystem())
/// fs.inject(.failWrite(errno: ENOSPC, skip: 2))   // the 3rd write and all later ones fail
/// ```
@_spi(Testing) public final class FaultInjectingFileSystem: FileSystem {
    /// A rule that makes matching operations fail.
    @_spi(Testing) public struct Fault: Sendable {
        /// The operations a fault can target.
        @_spi(Testing) public enum Operation: Sendable, Equatable {
            /// ``StorageFile/write(_:at:)`` on a file opened through this file system.
            case write
            /// ``StorageFile/sync()``.
            case sync
            /// ``FileSystem/open(_:mode:)``.
            case open
            /// ``FileSystem/rename(_:to:)`` (the path filter matches either path).
            case rename
            /// ``FileSystem/removeFile(_:)``.
            case remove
            /// ``FileSystem/syncDirectory(_:)``.
            case syncDirectory
        }

        /// What happens to a matching operation.
        @_spi(Testing) public enum Effect: Sendable, Equatable {
            /// Fails with `errno` (`EIO`, `ENOSPC`, …) without doing anything.
            case error(errno: Int32)
            /// For writes: writes the first `keepingBytes` bytes through, then fails with
            /// `errno`. Other operations just fail with `errno`.
            case shortWrite(keepingBytes: Int, errno: Int32)
        }

        /// The operation targeted.
        @_spi(Testing) public var operation: Operation
        /// What a matching operation suffers.
        @_spi(Testing) public var effect: Effect
        /// Only paths containing this string match; `nil` matches any path.
        @_spi(Testing) public var pathContains: String?
        /// How many matching operations succeed before the fault starts firing.
        @_spi(Testing) public var skip: Int
        /// How many times the fault fires; `nil` means every matching operation after the
        /// skipped ones fails (a persistent fault).
        @_spi(Testing) public var times: Int?

        /// Makes a fault rule.
        @_spi(Testing) public init(
            _ operation: Operation, _ effect: Effect, pathContains: String? = nil, skip: Int = 0,
            times: Int? = nil
        ) {
            self.operation = operation
            self.effect = effect
            self.pathContains = pathContains
            self.skip = skip
            self.times = times
        }

        /// Fails writes with `errno` after `skip` successful ones, `times` times (`nil`: always).
        @_spi(Testing) public static func failWrite(
            errno: Int32 = EIO, pathContains: String? = nil, skip: Int = 0, times: Int? = nil
        ) -> Fault {
            Fault(.write, .error(errno: errno), pathContains: pathContains, skip: skip, times: times)
        }

        /// Fails file syncs with `errno` after `skip` successful ones, `times` times
        /// (`nil`: always).
        @_spi(Testing) public static func failSync(
            errno: Int32 = EIO, pathContains: String? = nil, skip: Int = 0, times: Int? = nil
        ) -> Fault {
            Fault(.sync, .error(errno: errno), pathContains: pathContains, skip: skip, times: times)
        }

        /// Makes a write (after `skip` successful ones) write only `keepingBytes` bytes and fail
        /// with `errno`, `times` times (default once).
        @_spi(Testing) public static func shortWrite(
            keepingBytes: Int, errno: Int32 = ENOSPC, pathContains: String? = nil, skip: Int = 0,
            times: Int? = 1
        ) -> Fault {
            Fault(.write, .shortWrite(keepingBytes: keepingBytes, errno: errno),
                  pathContains: pathContains, skip: skip, times: times)
        }

        /// Fails any operation with `errno` after `skip` successful ones, `times` times
        /// (`nil`: always).
        @_spi(Testing) public static func fail(
            _ operation: Operation, errno: Int32 = EIO, pathContains: String? = nil,
            skip: Int = 0, times: Int? = nil
        ) -> Fault {
            Fault(operation, .error(errno: errno), pathContains: pathContains, skip: skip,
                  times: times)
        }
    }

    private struct Rule {
        var fault: Fault
        var seen = 0
        var fired = 0
    }

    private struct State {
        var rules: [Rule] = []
        var writeCount = 0
        var syncCount = 0
    }

    /// The file system operations are forwarded to.
    @_spi(Testing) public let base: any FileSystem
    private let state = Locked(State())

    /// Wraps `base`; no faults are active until ``inject(_:)``.
    @_spi(Testing) public init(wrapping base: any FileSystem) { self.base = base }

    /// Adds a fault rule. Rules are checked in the order they were added; the first that fires
    /// decides the effect, and every matching rule counts the operation toward its `skip`.
    @_spi(Testing) public func inject(_ fault: Fault) {
        state.withLock { $0.rules.append(Rule(fault: fault)) }
    }

    /// Removes all fault rules (counters keep counting).
    @_spi(Testing) public func clearFaults() {
        state.withLock { $0.rules = [] }
    }

    /// The number of file writes seen so far, failed ones included.
    @_spi(Testing) public var writeCount: Int { state.withLock { $0.writeCount } }

    /// The number of syncs seen so far (file syncs and directory syncs), failed ones included.
    @_spi(Testing) public var syncCount: Int { state.withLock { $0.syncCount } }

    /// Counts the operation and returns the effect of the first rule that fires, if any.
    func check(_ operation: Fault.Operation, paths: [String]) -> Fault.Effect? {
        state.withLock { state in
            switch operation {
            case .write: state.writeCount += 1
            case .sync, .syncDirectory: state.syncCount += 1
            default: break
            }
            var effect: Fault.Effect?
            for index in state.rules.indices {
                let fault = state.rules[index].fault
                guard fault.operation == operation else { continue }
                if let needle = fault.pathContains, !paths.contains(where: { $0.contains(needle) }) {
                    continue
                }
                state.rules[index].seen += 1
                guard effect == nil, state.rules[index].seen > fault.skip else { continue }
                if let times = fault.times, state.rules[index].fired >= times { continue }
                state.rules[index].fired += 1
                effect = fault.effect
            }
            return effect
        }
    }

    /// Throws the injected error for `operation` if a rule fires.
    func failIfInjected(_ operation: Fault.Operation, path: String, paths: [String]? = nil) throws {
        if let effect = check(operation, paths: paths ?? [path]) {
            throw Self.injectedError(operation, path: path, effect: effect)
        }
    }

    static func injectedError(_ operation: Fault.Operation, path: String, effect: Fault.Effect)
        -> StrataError
    {
        let code: Int32
        switch effect {
        case .error(let errno), .shortWrite(_, let errno): code = errno
        }
        return StrataError(.io, "\(operation) failed (injected)", file: path, errno: code)
    }

    // MARK: - FileSystem

    /// Opens a file through the base file system and wraps it.
    /// - Throws: an injected ``StrataError`` `.io`, or what the base file system throws.
    @_spi(Testing) public func open(_ path: String, mode: FileOpenMode) throws -> any StorageFile {
        try failIfInjected(.open, path: path)
        return FaultInjectingFile(base: try base.open(path, mode: mode), fileSystem: self)
    }

    /// Forwards to the base file system.
    @_spi(Testing) public func exists(_ path: String) -> Bool { base.exists(path) }

    /// Forwards to the base file system.
    /// - Throws: what the base file system throws.
    @_spi(Testing) public func contentsOfDirectory(_ path: String) throws -> [String] {
        try base.contentsOfDirectory(path)
    }

    /// Forwards to the base file system.
    /// - Throws: what the base file system throws.
    @_spi(Testing) public func createDirectory(_ path: String) throws {
        try base.createDirectory(path)
    }

    /// Removes a file unless a `.remove` fault fires.
    /// - Throws: an injected ``StrataError`` `.io`, or what the base file system throws.
    @_spi(Testing) public func removeFile(_ path: String) throws {
        try failIfInjected(.remove, path: path)
        try base.removeFile(path)
    }

    /// Renames unless a `.rename` fault fires (its path filter matches either path).
    /// - Throws: an injected ``StrataError`` `.io`, or what the base file system throws.
    @_spi(Testing) public func rename(_ source: String, to destination: String) throws {
        try failIfInjected(.rename, path: source, paths: [source, destination])
        try base.rename(source, to: destination)
    }

    /// Syncs a directory unless a `.syncDirectory` fault fires.
    /// - Throws: an injected ``StrataError`` `.io`, or what the base file system throws.
    @_spi(Testing) public func syncDirectory(_ path: String) throws {
        try failIfInjected(.syncDirectory, path: path)
        try base.syncDirectory(path)
    }

    /// Forwards to the base file system.
    /// - Throws: what the base file system throws.
    @_spi(Testing) public func lock(_ path: String) throws -> any FileLock { try base.lock(path) }

    /// Forwards to the base file system.
    @_spi(Testing) public func isLockHeld(_ path: String) -> Bool { base.isLockHeld(path) }
}
