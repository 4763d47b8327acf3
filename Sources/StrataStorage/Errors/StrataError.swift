#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one error type Strata throws.
///
/// Every failure carries a ``Code`` that says what kind of failure it is, and a message a person
/// can act on. Corruption names the file and byte offset; I/O failures carry the `errno`.
///
/// Match errors by code, either with a `where` clause or with a pattern:
///
/// ```swift
/// do {
///     let store = try Store(directory: path)
/// } catch StrataError.locked {
///     print("another process has the database open")
/// } catch let error as StrataError where error.code == .corruption {
///     print("damaged:", error.file ?? "?", error.offset ?? -1)
/// }
/// ```
///
/// `StrataError` is an immutable value and is `Sendable`.
public struct StrataError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure an error reports.
    ///
    /// Codes are open for extension: later layers add their own (the object layer adds
    /// `.primaryKeyExists`, `.schemaMismatch`, …). Compare them with `==` or match them in a
    /// `catch` clause.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable name of the code, as printed.
        public let name: String

        /// Makes a code with a stable name. Layers above the storage engine define their codes
        /// with this initializer.
        public init(_ name: String) { self.name = name }

        public var description: String { name }

        /// Bytes on disk are not what was written: a checksum mismatch, an impossible length or
        /// kind, a damaged header. ``StrataError/file`` and ``StrataError/offset`` say where.
        public static let corruption = Code("corruption")
        /// The operating system refused an operation; ``StrataError/errno`` says why.
        public static let io = Code("io")
        /// Another process holds the database's `LOCK` file.
        public static let locked = Code("locked")
        /// The caller passed a value the API does not accept (an empty key, a value too large…).
        public static let invalidArgument = Code("invalidArgument")
        /// A write was attempted on a database opened read-only.
        public static let readOnly = Code("readOnly")
        /// A file was written by a newer (or unknown) version of the format.
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// A file or database that was expected does not exist.
        public static let notFound = Code("notFound")
        /// The store was closed, or an earlier failure made it refuse further writes until it
        /// is reopened (for example after a failed `fsync`).
        public static let closed = Code("closed")
        /// The encryption key does not fit the store: the wrong key, no key for an encrypted
        /// store, a key for a store that is not encrypted, or a key that is not 64 bytes long.
        /// The message says which.
        public static let invalidKey = Code("invalidKey")
    }

    /// What kind of failure this is.
    public let code: Code
    /// A sentence that says what went wrong and, where it can, what to do about it.
    public let message: String
    /// The file concerned, when there is one.
    public let file: String?
    /// The byte offset in ``file`` where the problem was found, when known.
    public let offset: Int?
    /// The `errno` reported by the operating system, for ``Code/io`` errors.
    public let errno: Int32?

    /// Makes an error. Layers above the storage engine use this to report their own codes.
    public init(
        _ code: Code, _ message: String, file: String? = nil, offset: Int? = nil, errno: Int32? = nil
    ) {
        self.code = code
        self.message = message
        self.file = file
        self.offset = offset
        self.errno = errno
    }

    public var description: String {
        var text = "\(code): \(message)"
        if let file {
            text += " [\(file)"
            if let offset { text += " at byte \(offset)" }
            text += "]"
        }
        if let errno { text += " (errno \(errno): \(String(cString: strerror(errno))))" }
        return text
    }

    // Pattern-matching shortcuts: `catch StrataError.corruption { … }`.

    /// Matches any ``Code/corruption`` error in a `catch` clause.
    public static let corruption = Code.corruption
    /// Matches any ``Code/io`` error in a `catch` clause.
    public static let io = Code.io
    /// Matches any ``Code/locked`` error in a `catch` clause.
    public static let locked = Code.locked
    /// Matches any ``Code/invalidArgument`` error in a `catch` clause.
    public static let invalidArgument = Code.invalidArgument
    /// Matches any ``Code/readOnly`` error in a `catch` clause.
    public static let readOnly = Code.readOnly
    /// Matches any ``Code/unsupportedFormat`` error in a `catch` clause.
    public static let unsupportedFormat = Code.unsupportedFormat
    /// Matches any ``Code/notFound`` error in a `catch` clause.
    public static let notFound = Code.notFound
    /// Matches any ``Code/closed`` error in a `catch` clause.
    public static let closed = Code.closed
    /// Matches any ``Code/invalidKey`` error in a `catch` clause.
    public static let invalidKey = Code.invalidKey
}

extension StrataError.Code {
    /// Lets a code stand as a pattern for any error: `catch StrataError.locked`.
    public static func ~= (pattern: StrataError.Code, value: any Error) -> Bool {
        (value as? StrataError)?.code == pattern
    }
}

extension StrataError {
    /// `error` as a `StrataError`: itself when it is one, else `.io` with its description.
    /// The one place an error from elsewhere (a `FileSystem` of the caller's) becomes ours.
    static func converting(_ error: any Error) -> StrataError {
        error as? StrataError ?? StrataError(.io, "\(error)")
    }

    /// An I/O error from the current `errno`, naming the operation and file.
    static func io(_ operation: String, path: String, errno code: Int32) -> StrataError {
        StrataError(.io, "\(operation) failed", file: path, errno: code)
    }

    /// A corruption error at a file offset.
    static func corrupt(_ message: String, file: String, offset: Int) -> StrataError {
        StrataError(.corruption, message, file: file, offset: offset)
    }
}
