// COMMITTED: where the running writer's decided log ends, for read-only followers
// (docs/format.md §13, docs/design-notifications.md "Following another process").
//
// ┌────────────┬─────────────┬─────────────┬──────────┬─────────┐
// │ magic (8)  │ session (8) │ segment (4) │ end (8)  │ crc (4) │
// └────────────┴─────────────┴─────────────┴──────────┴─────────┘
//   0            8             16            20         28        32
//
// - magic: "STRATACE".
// - session: random, chosen by each read-write open; a follower compares it before and after a
//   pass to know that the same writer ran all along.
// - segment, end: the active segment, and the offset where the last group the writer decided
//   in it ends (its write, and its fsync when one was asked for, succeeded). Bytes past `end`
//   may belong to a group whose write or fsync is still running, and that the writer cuts off
//   if it fails.
// - crc: masked CRC-32C of bytes [0, 28).
//
// The writer rewrites the 32 bytes in place with one write at open (after recovery) and after
// every group it decided; it never syncs them, since they only matter while it runs: a follower
// trusts them only while the writer holds LOCK (`FileSystem.isLockHeld`). Nothing else reads
// the file; recovery ignores it.

/// The writer's published end of its decided log (see above).
struct CommittedEnd: Equatable, Sendable {
    static let fileName = "COMMITTED"
    static let size = 32
    static let magic: [UInt8] = Array("STRATACE".utf8)
    /// How many times a reader reads again after a checksum mismatch (a read that overlapped
    /// the writer's rewrite) before it gives up.
    static let readAttempts = 4

    var session: UInt64
    var segment: UInt32
    var end: UInt64

    func encoded() -> [UInt8] {
        var bytes = Self.magic
        bytes.appendLittleEndian(session)
        bytes.appendLittleEndian(segment)
        bytes.appendLittleEndian(end)
        bytes.appendLittleEndian(CRC32C.mask(CRC32C.checksum(bytes)))
        return bytes
    }

    /// The decoded record, or nil when `bytes` is not a whole, well-checksummed one.
    static func decode(_ bytes: [UInt8]) -> CommittedEnd? {
        guard bytes.count == size, Array(bytes.prefix(8)) == magic else { return nil }
        return bytes.withUnsafeBytes { raw -> CommittedEnd? in
            let stored = raw.loadLittleEndian(at: 28, as: UInt32.self)
            guard CRC32C.mask(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[0..<28]))) == stored else {
                return nil
            }
            return CommittedEnd(
                session: raw.loadLittleEndian(at: 8, as: UInt64.self),
                segment: raw.loadLittleEndian(at: 16, as: UInt32.self),
                end: raw.loadLittleEndian(at: 20, as: UInt64.self))
        }
    }

    /// The record in `directory`, or nil when there is none or it does not decode (after a few
    /// attempts, in case a read overlapped the writer's rewrite). Never throws: a follower
    /// without it reads as it would without a writer.
    static func read(in directory: String, fileSystem: any FileSystem) -> CommittedEnd? {
        let path = joinPath(directory, fileName)
        guard let file = try? fileSystem.open(path, mode: .readOnly) else { return nil }
        defer { try? file.close() }
        for _ in 0..<readAttempts {
            guard let bytes = try? file.readExactly(size, at: 0) else { return nil }
            if let decoded = decode(bytes) { return decoded }
        }
        return nil
    }
}

/// The writer's side of `COMMITTED`: the open file and this open's session.
///
/// Thread safety: ``publish(segment:end:)`` is called under the store's writer lock, so one
/// write at a time; the file itself may be written from any thread.
final class CommittedEndPublisher: Sendable {
    private let file: any StorageFile
    let session: UInt64

    /// Opens (creating when missing) `COMMITTED` in `directory`. Its creation is not synced:
    /// the record matters only while this writer runs.
    /// - Throws: ``StrataError`` `.io` when the file cannot be opened.
    init(directory: String, fileSystem: any FileSystem) throws {
        file = try fileSystem.open(joinPath(directory, CommittedEnd.fileName), mode: .createOrOpen)
        var generator = SystemRandomNumberGenerator()
        session = generator.next()
    }

    /// Publishes that the log of `segment` is decided up to `end`.
    /// - Throws: ``StrataError`` `.io` when the write fails (followers then keep reading up to
    ///   the previous record, which is still true).
    func publish(segment: UInt32, end: Int) throws {
        let record = CommittedEnd(session: session, segment: segment, end: UInt64(end))
        try file.write(record.encoded(), at: 0)
    }

    deinit { try? file.close() }
}
