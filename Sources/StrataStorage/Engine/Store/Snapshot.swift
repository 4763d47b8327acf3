import HashTreeCollections

/// An immutable view of a store as of one commit.
///
/// Taking a snapshot is O(1): it copies the roots of the persistent index and a reference to
/// every segment it may read, so it keeps reading the same data however many commits follow
/// (and whatever segments a compaction replaces meanwhile). Drop it to let those segments
/// go.
///
/// `Snapshot` is a value and is `Sendable`: hand it to any thread; any number of threads may
/// read from one snapshot at once.
public struct Snapshot: Sendable {
    let storage: SnapshotStorage
    let options: ReadOptions

    /// The index as of this snapshot.
    var index: KeyIndex { storage.index }
    /// Every segment the index may point into.
    var segments: SegmentMap { storage.segments }

    struct ReadOptions: Sendable {
        var verifyChecksums: Bool
    }

    /// The sequence number of the last commit this snapshot sees (0 for an empty store).
    public let sequence: UInt64

    /// The number of keys, over all keyspaces.
    /// - Complexity: O(1).
    public var count: Int { index.count }

    /// The keyspaces that have at least one key, in no particular order.
    public var keyspaces: [Keyspace] { Array(index.keyspaces.keys) }

    /// The number of keys in one keyspace.
    /// - Complexity: O(1).
    public func count(in keyspace: Keyspace) -> Int { index.keyspaces[keyspace]?.count ?? 0 }

    /// Whether `key` has a value in `keyspace`.
    /// - Complexity: O(log n) in the keyspace's key count (a B+tree lookup).
    public func contains(_ key: StorageKey, in keyspace: Keyspace) -> Bool {
        index.location(of: key, in: keyspace) != nil
    }

    /// The value of `key` in `keyspace`, or nil when it has none.
    /// - Throws: ``StrataError`` `.corruption` (naming the segment and offset) when the stored
    ///   record fails its checks, `.io` when it cannot be read.
    /// - Complexity: O(log n) in the keyspace's key count, plus the value's size.
    public func value(for key: StorageKey, in keyspace: Keyspace) throws -> [UInt8]? {
        guard let location = index.location(of: key, in: keyspace) else { return nil }
        return try withRecord(of: key, in: keyspace, at: location) { try $0.value() }
    }

    /// Calls `body` with the value of `key` without copying it when it is stored uncompressed;
    /// returns nil without calling `body` when the key has no value.
    /// The bytes are valid only inside `body`.
    /// - Throws: what ``value(for:in:)`` throws, and what `body` throws.
    @inlinable
    public func withValue<R>(
        for key: StorageKey, in keyspace: Keyspace, _ body: (UnsafeRawBufferPointer) throws -> R
    ) throws -> R? {
        guard let entry = entry(for: key, in: keyspace) else { return nil }
        return try withValue(of: entry, body)
    }

    /// The entry of `key` in `keyspace`, or nil.
    @usableFromInline
    func entry(for key: StorageKey, in keyspace: Keyspace) -> Entry? {
        index.location(of: key, in: keyspace).map { Entry(key: key, keyspace: keyspace, location: $0) }
    }

    /// The keys of `keyspace`, in ascending byte-wise order.
    /// - Complexity: O(n) in the keyspace's key count.
    public func keys(in keyspace: Keyspace) -> [StorageKey] {
        Array(index.entries(in: keyspace).keys)
    }

    /// Calls `body` with every key of `keyspace` and its value, in ascending key order; stops
    /// early when `body` returns `false`.
    /// - Throws: what ``value(for:in:)`` throws, and what `body` throws.
    /// - Complexity: O(n) in the keyspace's key count, plus the values' sizes.
    public func forEach(
        in keyspace: Keyspace, _ body: (StorageKey, UnsafeRawBufferPointer) throws -> Bool
    ) throws {
        for entry in entries(in: keyspace) {
            guard try withValue(of: entry, { try body(entry.key, $0) }) else { return }
        }
    }

    /// The entries of `keyspace` in ascending key order: each key with a reference to its
    /// stored value, read with
    /// ``withValue(of:_:)`` when (and if) it is needed. Walking the entries reads no record.
    /// - Complexity: O(1) to make; O(n) in the keyspace's key count to walk.
    public func entries(in keyspace: Keyspace) -> Entries {
        Entries(keys: index.entries(in: keyspace), keyspace: keyspace)
    }

    /// Calls `body` with the value `entry` refers to, without copying it when it is stored
    /// uncompressed. The bytes are valid only inside `body`.
    /// - Precondition: `entry` came from this snapshot's ``entries(in:)`` (or from a copy of this
    ///   snapshot).
    /// - Throws: what ``value(for:in:)`` throws, and what `body` throws.
    /// - Complexity: O(1) plus the value's size.
    @inlinable
    public func withValue<R>(of entry: Entry, _ body: (UnsafeRawBufferPointer) throws -> R) throws -> R {
        // Only this wrapper is generic, and it is inlined (so specialized) in the caller; the
        // record is read by non-generic code, which needs no runtime metadata for R.
        var result: R?
        try visitValue(of: entry) { result = try body($0) }
        guard let result else { throw Snapshot.unreadError }
        return result
    }

    /// Calls `body` with the value `entry` refers to (see ``withValue(of:_:)``).
    @usableFromInline
    func visitValue(of entry: Entry, _ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try visitRecord(of: entry.key, in: entry.keyspace, at: entry.location) { record in
            if record.isCompressed {
                return try record.value().withUnsafeBytes(body)
            }
            return try body(record.valueBytes)
        }
    }

    /// The keys of `keyspace` that start with `prefix`, in ascending byte-wise order.
    /// - Complexity: O(log n + m) for n keys in the keyspace and m matches.
    public func keys(in keyspace: Keyspace, withPrefix prefix: [UInt8]) -> [StorageKey] {
        var matches: [StorageKey] = []
        guard prefix.count <= Int(UInt16.max) else { return matches }   // longer than any key
        var iterator = index.entries(in: keyspace).makeIterator(from: StorageKey(prefix))
        while let (key, _) = iterator.next(), key.withUnsafeBytes({ $0.starts(with: prefix) }) {
            matches.append(key)
        }
        return matches
    }

    /// Reads and checks the record of `key` in `keyspace` at `location`; `body` sees it decoded.
    func withRecord<R>(
        of key: StorageKey, in keyspace: Keyspace, at location: RecordLocation, _ body: (DecodedRecord) throws -> R
    ) throws -> R {
        var result: R?
        try visitRecord(of: key, in: keyspace, at: location) { result = try body($0) }
        guard let result else { throw Snapshot.unreadError }
        return result
    }

    /// What a read throws when its file system returned without handing over the bytes (a
    /// ``FileSystem`` implementation that breaks the ``StorageFile/visitBytes(at:count:_:)``
    /// contract).
    @usableFromInline
    static let unreadError = StrataError(.io, "the file system returned from a read without the bytes")

    /// Reads and checks the record at `location`: its checksum (unless reads skip it), that it
    /// is a put, and that it is the record of `key` in `keyspace` (an index entry or a hint
    /// pointing at another key's record is corruption, never another key's value); `body` sees
    /// it decoded. Not generic, so that a read costs no runtime generic metadata.
    func visitRecord(
        of key: StorageKey, in keyspace: Keyspace, at location: RecordLocation, _ body: (DecodedRecord) throws -> Void
    ) throws {
        guard let segment = storage.segments[location.segment] else {
            throw StrataError(.corruption, "index points into segment \(location.segment), which is not open")
        }
        try segment.file.visitBytes(at: Int(location.offset), count: Int(location.length)) { bytes in
            try RecordDecoder.withDecoded(
                bytes, seal: segment.seal, at: Int(location.offset), verifyingChecksum: options.verifyChecksums
            ) { decoded in
                let record: DecodedRecord
                switch decoded {
                case .success(let decoded): record = decoded
                case .failure(let damage):
                    throw StrataError.corrupt(damage.message, file: segment.path, offset: Int(location.offset))
                }
                guard record.kind == .put else {
                    throw StrataError.corrupt("index points at a \(record.kind) record", file: segment.path, offset: Int(location.offset))
                }
                guard record.isRecord(of: key, in: keyspace) else {
                    throw StrataError.corrupt(
                        "index entry for \(key) of \(keyspace) points at another key's record", file: segment.path,
                        offset: Int(location.offset))
                }
                do {
                    return try body(record)
                } catch let error as StrataError where error.code == .corruption && error.file == nil {
                    // A value that does not decompress (DecodedRecord.value()): name the record.
                    throw StrataError.corrupt(error.message, file: segment.path, offset: Int(location.offset))
                }
            }
        }
    }
}

/// What a snapshot reads: a copy of the published index and segment map, shared by every copy
/// of the ``Snapshot``. Immutable; `Sendable`.
final class SnapshotStorage: Sendable {
    let index: KeyIndex
    let segments: SegmentMap
    private let fence: SanitizerFence

    init(index: KeyIndex, segments: SegmentMap, fence: SanitizerFence) {
        self.index = index
        self.segments = segments
        self.fence = fence
    }

    // Runs before `index` and `segments` are released (see SanitizerFence).
    deinit { fence.run {} }
}
