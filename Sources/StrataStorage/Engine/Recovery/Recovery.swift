// Recovery: turns the files of a store directory into an index and the writer's position.
//
// 1. Read MANIFEST (none: a new store when no segment file holds a byte past its header,
//    otherwise corruption, or with salvage the segments found; Recovery+MissingManifest.swift).
// 2. Scan each listed segment in order, applying committed data to the index.
//    - Compacted segments come first (the output of the last compaction). Each of their puts is
//      committed on its own and is applied at once; they may come in any order, and a key
//      appears at most once among them. Any damage in them is corruption: they are synced
//      before any MANIFEST names them. After them, the running last sequence is the highest
//      sequence they hold.
//    - Then the log segments, oldest first: transactions apply at their commit record, and
//      every record's sequence must be above the last committed one. Damage in a sealed
//      segment is corruption. Damage in the newest segment ends the log when a crash can
//      explain it (a torn or zero-filled tail that no later synced commit covers).
//    - A sealed segment whose hint file matches it is applied from the hint, not scanned
//      (Recovery+Hint.swift); a missing or bad hint is a `.hintIgnored` event and a scan.
//    - Every segment but the newest whose header records a sealed length must be at least that
//      long (Format/SegmentHeader.swift): a cut where a record starts leaves whole records that
//      pass every other check.
//    The last listed segment must be a log segment, and no compacted segment may follow a log
//    segment.
// 3. Read-write only: cut the newest segment after its last commit and sync it, remove
//    leftover files (MANIFEST.tmp, hints of segments not listed or of the newest one, segments no manifest names: a compaction's output that was
//    never installed, or the segments an installed compaction replaced), create the first
//    segment of a new store.
//
// A read-only open takes no lock, so a writer may compact while it runs and unlink a segment
// the MANIFEST it read still named. When the open fails and the MANIFEST has changed since it
// was read, it starts over with the new one (a few times).
//
// A read-only store goes on from where a recovery stopped when it refreshes
// (Recovery+Follow.swift), or runs a whole recovery again (Store+Refresh.swift).
//
// Runs on one thread before the store is shared (a refresh: on a `Result` no one else sees).

struct Recovery {
    let directory: String
    let options: Store.Options
    /// The key made of `options.encryptionKey`; nil when the store is opened without one.
    let key: StoreKey?
    /// Given to every SegmentFile; nil for read-only opens.
    let remover: SegmentRemover?
    var fileSystem: any FileSystem { options.fileSystem }
    /// How far a read-only pass reads the newest log segment (Engine/Recovery/FollowLimit.swift).
    var followLimit = FollowLimit.none

    /// How many times a read-only open starts over when the MANIFEST changed under it.
    static let readOnlyAttempts = 8
    /// What a corruption error at open tells the reader to do: the command that copies what
    /// precedes the damage into a new database, or the API's way of reading it.
    static let salvageAdvice = "to keep what precedes the damage, copy it into a new database with `strata salvage PATH --out NEW` (or open the store read-only with salvage)"

    struct Result {
        var index = KeyIndex()
        var lastSequence: UInt64 = 0
        var segments = SegmentMap()
        var segmentOrder: [UInt32] = []
        /// The listed segments that are compacted (a prefix of `segmentOrder`).
        var compactedSegments: Set<UInt32> = []
        /// Records and bytes of each listed segment.
        var tallies: [UInt32: SegmentTally] = [:]
        /// One above the highest segment number in the MANIFEST or among the directory's files,
        /// at open; a follower's catch-up (Recovery+Follow.swift) leaves it, as a read-only store
        /// creates no segment.
        var nextSegmentNumber: UInt64 = 1
        var activeEnd = SegmentHeader.size
        var events: [RecoveryEvent] = []
        var records = 0
        var bytes = 0
        /// Whether a log segment was scanned (no compacted segment may follow one).
        var sawLogSegment = false
        /// The MANIFEST this pass read (nil when there was none).
        var manifest: Manifest?
        /// The last sequence committed in the log, before the MANIFEST's floor raised
        /// `lastSequence`: where a follower's next scan of the newest segment goes on from.
        var scannedSequence: UInt64 = 0
    }

    func run() throws -> Result {
        guard fileSystem.exists(directory) else {
            throw StrataError(.notFound, "no Strata database at \(directory)", file: directory)
        }
        guard options.readOnly else { return try recover() }
        var attempt = 1
        while true {
            // Read before the MANIFEST: a segment the limit names is listed in any MANIFEST
            // read after it (Engine/Recovery/FollowLimit.swift).
            var pass = self
            pass.followLimit = FollowLimit.read(in: directory, fileSystem: fileSystem)
            let manifest = try Manifest.read(in: directory, fileSystem: fileSystem)
            do {
                let result = try pass.recover(manifest: manifest)
                if pass.followLimit.isSameWriter(as: FollowLimit.read(in: directory, fileSystem: fileSystem)) {
                    return result
                }
                guard attempt < Self.readOnlyAttempts else {
                    throw StrataError(
                        .io, "a writer started or stopped during each of \(attempt) reads of the log; try again",
                        file: directory)
                }
                attempt += 1
            } catch {
                // A writer that compacted meanwhile may have unlinked a segment `manifest`
                // named: start over with the new MANIFEST.
                let current = try? Manifest.read(in: directory, fileSystem: fileSystem)
                guard attempt < Self.readOnlyAttempts, current != manifest else { throw error }
                attempt += 1
            }
        }
    }

    /// One recovery pass over `manifest` (read-only), or over the MANIFEST on disk.
    private func recover(manifest given: Manifest?? = nil) throws -> Result {
        var result = Result()
        let names = try fileSystem.contentsOfDirectory(directory)
        let manifest = try given ?? Manifest.read(in: directory, fileSystem: fileSystem)
        var listed = manifest?.segments ?? []
        if manifest == nil {
            let found = try segmentsHoldingData(names: names)
            if found.isEmpty, options.readOnly {
                throw StrataError(.notFound, "no Strata database at \(directory) (no MANIFEST)", file: directory)
            }
            if !found.isEmpty {
                guard options.salvage else { throw missingManifestError(found) }
                listed = Self.salvageOrder(found)
                result.events.append(RecoveryEvent(
                    kind: .salvagedCorruption, file: joinPath(directory, Manifest.fileName), offset: 0,
                    byteCount: 0, message: "MANIFEST is missing; read the \(listed.count) segment(s) found in the directory"))
            }
        }
        for (position, number) in listed.enumerated() {
            let keepGoing = try scanSegment(number, isNewest: position == listed.count - 1, into: &result)
            if !keepGoing { break }
        }
        result.manifest = manifest
        result.scannedSequence = result.lastSequence
        result.lastSequence = max(result.lastSequence, manifest?.lastSequence ?? 0)
        let numbers = listed + names.compactMap(SegmentFile.number(fromName:))
        result.nextSegmentNumber = UInt64(numbers.max() ?? 0) + 1
        guard !options.readOnly else { return result }

        try removeLeftovers(names: names, listed: Set(listed), newest: listed.last, into: &result)
        if manifest == nil {
            try createFirstSegment(into: &result)
        }
        return result
    }

    /// Scans one segment into `result`; returns false when salvage stopped at damage.
    func scanSegment(_ number: UInt32, isNewest: Bool, into result: inout Result) throws -> Bool {
        let writable = isNewest && !options.readOnly
        let opened: (SegmentFile, SegmentHeader, Int)
        do {
            opened = try openSegment(
                number, writable: writable, decidesKey: result.segmentOrder.isEmpty, acceptingTornSeal: isNewest)
        } catch let error as StrataError where error.code == .corruption && options.salvage {
            // A segment that is missing or whose header fails its checks: salvage keeps the
            // segments before it, as it keeps the records before damage inside one.
            result.events.append(RecoveryEvent(
                kind: .salvagedCorruption, file: error.file ?? joinPath(directory, SegmentFile.name(for: number)),
                offset: error.offset ?? 0, byteCount: 0,
                message: "\(error.message); kept every segment before it, read nothing from it on"))
            return false
        }
        let (segment, header, fileSize) = opened
        if header.kind == .compacted {
            guard !isNewest else {
                throw StrataError.corrupt(
                    "the MANIFEST ends with a compacted segment; the newest segment must be a log segment",
                    file: segment.path, offset: 24)
            }
            guard !result.sawLogSegment else {
                throw StrataError.corrupt(
                    "a compacted segment is listed after a log segment; compacted segments come first",
                    file: segment.path, offset: 24)
            }
            return try scanCompactedSegment(segment, header: header, size: fileSize, into: &result)
        }
        result.sawLogSegment = true
        // A read-only pass reads the newest segment only as far as a running writer decided it.
        let size = isNewest && options.readOnly ? followLimit.readableEnd(ofNewest: number, size: fileSize) : fileSize
        let hint = isNewest ? nil : usableHint(for: segment, header: header, size: size, into: &result)
        let scan = try hint.map { try applyHint($0, of: segment, into: &result) }
            ?? indexLogRecords(of: segment, seal: segment.seal, size: size, into: &result)
        result.segments[number] = segment
        result.segmentOrder.append(number)
        var validEnd = size
        var keepGoing = true
        if let damage = scan.damage {
            keepGoing = try judge(damage, of: scan, in: segment.path, size: size, isNewest: isNewest, into: &result)
            validEnd = scan.committedEnd
        }
        if keepGoing, !isNewest {
            keepGoing = try checkSealedLength(header, size: size, path: segment.path, into: &result)
        }
        if header.isTornSeal {
            try acceptTornSeal(header, of: segment, scan: scan, writable: writable, into: &result)
        }
        if scan.uncommittedRecords > 0 {
            result.events.append(RecoveryEvent(
                kind: .uncommittedTransaction, file: segment.path, offset: scan.committedEnd,
                byteCount: 0,
                message: "ignored \(scan.uncommittedRecords) record(s) of transactions that never committed"))
        }
        if isNewest {
            validEnd = scan.committedEnd
            if writable {
                if size > validEnd { try segment.file.truncate(to: validEnd) }
                // What an earlier process wrote with `.none` durability may still be only in
                // the page cache: sync it, so `synced-through` offsets written from now on are true.
                try segment.file.sync()
            }
            result.activeEnd = validEnd
        }
        result.bytes += isNewest ? validEnd : size
        result.tallies[number] = SegmentTally(records: scan.records, bytes: isNewest ? validEnd : size)
        return keepGoing
    }

    /// Opens a listed segment and checks its header: it exists, is under 4 GiB (record
    /// locations hold 32-bit offsets), names itself, and fits the key (see `keyedSeal`).
    private func openSegment(
        _ number: UInt32, writable: Bool, decidesKey: Bool, acceptingTornSeal: Bool = false
    ) throws -> (SegmentFile, SegmentHeader, Int) {
        let path = joinPath(directory, SegmentFile.name(for: number))
        guard fileSystem.exists(path) else {
            throw StrataError.corrupt("segment listed in MANIFEST is missing", file: path, offset: 0)
        }
        let file = try fileSystem.open(path, mode: writable ? .readWrite : .readOnly)
        let size = try file.size()
        guard size <= Int(UInt32.max) else {
            throw StrataError.corrupt("segment of \(size) bytes is larger than 4 GiB", file: path, offset: Int(UInt32.max))
        }
        let header = try file.withBytes(at: 0, count: min(size, SegmentHeader.size)) {
            try SegmentHeader.decode($0, file: path, acceptingTornSeal: acceptingTornSeal)
        }
        guard header.segmentNumber == number else {
            throw StrataError.corrupt(
                "segment header says segment \(header.segmentNumber)", file: path, offset: 12)
        }
        var seal = try keyedSeal(for: header, path: path, decidesKey: decidesKey)
        do {
            seal = seal.decompressing(with: try SegmentDictionary.load(for: header, seal: seal, from: file, size: size, path: path))
        } catch let error as StrataError where error.code == .corruption && options.salvage {
            // Salvage reads on without it: the scan then stops at the dictionary record, the
            // first record it cannot use, and reports it (`scanCompactedSegment`).
        }
        let segment = SegmentFile(number: number, kind: header.kind, seal: seal, path: path, file: file, remover: remover)
        return (segment, header, size)
    }

    /// Checks a sealed segment (any but the newest) against the length its header recorded
    /// when it was sealed: a segment cut where a record starts holds only whole records, and
    /// only this length tells that some are missing. Returns whether recovery goes on to the
    /// next segment (false when salvage stopped here).
    ///
    /// A sealed length of 0 was not recorded (a segment sealed by a build that predates the
    /// field): nothing to check. A segment longer than its sealed length is read as any other:
    /// only a build that predates the field appends past it (after a crash between a roll's
    /// header rewrite and its MANIFEST), and every record past it passes its own checksum.
    /// - Throws: ``StrataError`` `.corruption` naming the file and its end, where the missing
    ///   bytes start, unless salvaging.
    func checkSealedLength(
        _ header: SegmentHeader, size: Int, path: String, into result: inout Result
    ) throws -> Bool {
        guard header.sealedLength > UInt64(size) else { return true }
        let missing = Int(clamping: header.sealedLength - UInt64(size))
        let problem = "the segment is \(size) bytes long but was sealed at \(header.sealedLength) bytes; "
            + "the \(missing) bytes from \(size) on are missing"
        guard options.salvage else {
            throw StrataError.corrupt(
                "\(problem); \(Self.salvageAdvice)",
                file: path, offset: size)
        }
        result.events.append(RecoveryEvent(
            kind: .salvagedCorruption, file: path, offset: size, byteCount: missing,
            message: "\(problem); kept everything before them, read nothing after them"))
        return false
    }

    /// Scans a log segment's committed transactions into the index (puts set, deletes remove),
    /// from file offset `base` (where a record starts; 0: the whole segment) to `size`.
    func indexLogRecords(
        of segment: SegmentFile, seal: RecordSeal, from base: Int = 0, size: Int, into result: inout Result
    ) throws -> SegmentScanResult {
        let number = segment.number
        var index = result.index
        result.index = KeyIndex()  // so that `index` is the only owner, changed in place
        let scan = try index.edit { index in
            try segment.file.withBytes(at: base, count: size - base) { bytes in
                SegmentScanner.scan(bytes, seal: seal, after: result.lastSequence, from: base) { _, operations in
                    for operation in operations {
                        if operation.isPut {
                            index.set(
                                RecordLocation(segment: number, offset: operation.offset, length: operation.length),
                                for: operation.key, in: operation.keyspace)
                        } else {
                            index.remove(operation.key, in: operation.keyspace)
                        }
                    }
                }
            }
        }
        result.index = index
        result.lastSequence = scan.lastSequence
        result.records += scan.records
        return scan
    }

    /// What damage in a log segment means: a torn or zero-filled tail when a crash can explain
    /// it (the newest segment, past the synced point); else salvaged (recovery stops there) or
    /// `.corruption`. Returns whether recovery goes on to the next segment.
    func judge(
        _ damage: (offset: Int, kind: RecordDamage), of scan: SegmentScanResult, in path: String, size: Int,
        isNewest: Bool, into result: inout Result
    ) throws -> Bool {
        let crashCanExplain = isNewest && damage.kind.couldBeTornWrite && !scan.damageBeforeSyncedPoint
        if crashCanExplain {
            result.events.append(RecoveryEvent(
                kind: scan.damageIsZeroFill ? .zeroFilledTail : .tornTail, file: path,
                offset: damage.offset, byteCount: size - damage.offset,
                message: scan.damageIsZeroFill
                    ? "the log ends in zero bytes; they were never written"
                    : "\(damage.kind.message): the last write was cut short by a crash; the log ends before it"))
            return true
        }
        guard options.salvage else {
            throw StrataError.corrupt(
                "\(damage.kind.message); \(Self.salvageAdvice)",
                file: path, offset: damage.offset)
        }
        result.events.append(RecoveryEvent(
            kind: .salvagedCorruption, file: path, offset: damage.offset,
            byteCount: size - damage.offset,
            message: "\(damage.kind.message); kept every transaction before it, read nothing after it"))
        return false
    }

    /// Scans a compacted segment into `result`; returns false when salvage stopped at damage.
    private func scanCompactedSegment(
        _ segment: SegmentFile, header: SegmentHeader, size: Int, into result: inout Result
    ) throws -> Bool {
        let number = segment.number
        if let hint = usableHint(for: segment, header: header, size: size, into: &result) {
            let scan = try applyHint(hint, of: segment, into: &result)
            result.segments[number] = segment
            result.segmentOrder.append(number)
            result.compactedSegments.insert(number)
            result.tallies[number] = SegmentTally(records: scan.records, bytes: size)
            result.bytes += size
            return true  // the hint matched the sealed length, so `checkSealedLength` holds
        }
        var index = result.index
        result.index = KeyIndex()  // so that `index` is the only owner, changed in place
        let scan = try index.edit { index in
            try segment.file.withBytes(at: 0, count: size) { bytes in
                SegmentScanner.scanCompacted(bytes, seal: segment.seal, after: result.lastSequence) { _, operation in
                    // Only compacted segments were scanned so far: a key already in the index
                    // was copied twice, which compaction never does.
                    let location = RecordLocation(segment: number, offset: operation.offset, length: operation.length)
                    guard let earlier = index.set(location, for: operation.key, in: operation.keyspace) else { return nil }
                    index.set(earlier, for: operation.key, in: operation.keyspace)
                    return "key \(operation.key) of \(operation.keyspace) appears twice among the compacted segments"
                }
            }
        }
        result.index = index
        result.lastSequence = scan.lastSequence
        result.records += scan.records
        result.segments[number] = segment
        result.segmentOrder.append(number)
        result.compactedSegments.insert(number)
        result.tallies[number] = SegmentTally(records: scan.records, bytes: size)
        result.bytes += size
        guard let damage = scan.damage else {
            return try checkSealedLength(header, size: size, path: segment.path, into: &result)
        }
        if options.salvage {
            result.events.append(RecoveryEvent(
                kind: .salvagedCorruption, file: segment.path, offset: damage.offset,
                byteCount: size - damage.offset,
                message: "\(damage.kind.message) in a compacted segment; kept every record before it, read nothing after it"))
            return false
        }
        throw StrataError.corrupt(
            "\(damage.kind.message) in a compacted segment (synced before it was installed, so no crash explains it); "
                + "\(Self.salvageAdvice)",
            file: segment.path, offset: damage.offset)
    }

    private func removeLeftovers(
        names: [String], listed: Set<UInt32>, newest: UInt32?, into result: inout Result
    ) throws {
        var removed = false
        for name in names {
            let path = joinPath(directory, name)
            if name == Manifest.temporaryName {
                try fileSystem.removeFile(path)
                removed = true
                result.events.append(RecoveryEvent(
                    kind: .leftoverFileRemoved, file: path, offset: 0, byteCount: 0,
                    message: "removed a manifest left half-installed by a crash"))
            } else if let number = HintFile.number(fromName: name), !listed.contains(number) || number == newest {
                try fileSystem.removeFile(path)
                removed = true
                result.events.append(RecoveryEvent(
                    kind: .leftoverFileRemoved, file: path, offset: 0, byteCount: 0,
                    message: "removed a hint of a segment that is not sealed or not listed (left by a crash)"))
            } else if let number = SegmentFile.number(fromName: name), !listed.contains(number) {
                try fileSystem.removeFile(path)
                removed = true
                result.events.append(RecoveryEvent(
                    kind: .leftoverFileRemoved, file: path, offset: 0, byteCount: 0,
                    message: "removed a segment no manifest names (left by a crash)"))
            }
        }
        if removed { try fileSystem.syncDirectory(directory) }
    }

    private func createFirstSegment(into result: inout Result) throws {
        let segment = try SegmentWriter.createSegment(1, in: directory, fileSystem: fileSystem, key: key, remover: remover)
        try Manifest(segments: [1], lastSequence: result.lastSequence).install(in: directory, fileSystem: fileSystem)
        result.segments[1] = segment
        result.segmentOrder = [1]
        result.tallies = [1: SegmentTally(records: 0, bytes: SegmentHeader.size)]
        result.nextSegmentNumber = max(result.nextSegmentNumber, 2)
        result.activeEnd = SegmentHeader.size
        result.bytes = SegmentHeader.size
    }
}
