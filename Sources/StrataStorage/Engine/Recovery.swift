// Recovery: turns the files of a store directory into an index and the writer's position.
//
// 1. Read MANIFEST (none: a new store; segment files without one are leftovers only if they
//    hold no committed transaction, otherwise the missing manifest is corruption).
// 2. Scan each listed segment in order, applying committed transactions to the index.
//    Damage in a sealed segment is corruption. Damage in the newest segment ends the log when a
//    crash can explain it (a torn or zero-filled tail that no later synced commit covers).
// 3. Read-write only: cut the newest segment after its last commit and sync it, remove
//    leftover files (MANIFEST.tmp, segments no manifest names), create the first segment of a
//    new store.
//
// Runs on one thread before the store is shared.

struct Recovery {
    let directory: String
    let options: Store.Options
    var fileSystem: any FileSystem { options.fileSystem }

    struct Result {
        var index = KeyIndex()
        var lastSequence: UInt64 = 0
        var segments: [UInt32: SegmentFile] = [:]
        var segmentOrder: [UInt32] = []
        var activeEnd = SegmentHeader.size
        var events: [RecoveryEvent] = []
        var records = 0
        var bytes = 0
    }

    func run() throws -> Result {
        guard fileSystem.exists(directory) else {
            throw StrataError(.notFound, "no Strata database at \(directory)", file: directory)
        }
        var result = Result()
        let names = try fileSystem.contentsOfDirectory(directory)
        let manifest = try Manifest.read(in: directory, fileSystem: fileSystem)
        if manifest == nil, options.readOnly {
            throw StrataError(.notFound, "no Strata database at \(directory) (no MANIFEST)", file: directory)
        }
        let listed = manifest?.segments ?? []
        for (position, number) in listed.enumerated() {
            let keepGoing = try scanSegment(number, isNewest: position == listed.count - 1, into: &result)
            if !keepGoing { break }
        }
        result.lastSequence = max(result.lastSequence, manifest?.lastSequence ?? 0)
        guard !options.readOnly else { return result }

        try removeLeftovers(names: names, listed: Set(listed), manifestExists: manifest != nil, into: &result)
        if manifest == nil {
            try createFirstSegment(into: &result)
        }
        return result
    }

    /// Scans one segment into `result`; returns false when salvage stopped at damage.
    private func scanSegment(_ number: UInt32, isNewest: Bool, into result: inout Result) throws -> Bool {
        let path = joinPath(directory, SegmentFile.name(for: number))
        guard fileSystem.exists(path) else {
            throw StrataError.corrupt("segment listed in MANIFEST is missing", file: path, offset: 0)
        }
        let writable = isNewest && !options.readOnly
        let file = try fileSystem.open(path, mode: writable ? .readWrite : .readOnly)
        let segment = SegmentFile(number: number, path: path, file: file)
        let size = try file.size()
        let header = try file.withBytes(at: 0, count: min(size, SegmentHeader.size)) {
            try SegmentHeader.decode($0, file: path)
        }
        guard header.segmentNumber == number else {
            throw StrataError.corrupt(
                "segment header says segment \(header.segmentNumber)", file: path, offset: 12)
        }
        var index = result.index
        let scan = try file.withBytes(at: 0, count: size) { bytes in
            SegmentScanner.scan(bytes, after: result.lastSequence) { _, operations in
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
        result.index = index
        result.lastSequence = scan.lastSequence
        result.records += scan.records
        result.segments[number] = segment
        result.segmentOrder.append(number)

        var validEnd = size
        var keepGoing = true
        if let damage = scan.damage {
            let crashCanExplain = isNewest && damage.kind.couldBeTornWrite && !scan.damageBeforeSyncedPoint
            if crashCanExplain {
                result.events.append(RecoveryEvent(
                    kind: scan.damageIsZeroFill ? .zeroFilledTail : .tornTail, file: path,
                    offset: damage.offset, byteCount: size - damage.offset,
                    message: scan.damageIsZeroFill
                        ? "the log ends in zero bytes; they were never written"
                        : "\(damage.kind.message): the last write was cut short by a crash; the log ends before it"))
            } else if options.salvage {
                result.events.append(RecoveryEvent(
                    kind: .salvagedCorruption, file: path, offset: damage.offset,
                    byteCount: size - damage.offset,
                    message: "\(damage.kind.message); kept every transaction before it, read nothing after it"))
                keepGoing = false
            } else {
                throw StrataError.corrupt(
                    "\(damage.kind.message); run `strata verify`, or open read-only with salvage to keep what precedes it",
                    file: path, offset: damage.offset)
            }
            validEnd = scan.committedEnd
        }
        if scan.uncommittedRecords > 0 {
            result.events.append(RecoveryEvent(
                kind: .uncommittedTransaction, file: path, offset: scan.committedEnd,
                byteCount: 0,
                message: "ignored \(scan.uncommittedRecords) record(s) of transactions that never committed"))
        }
        if isNewest {
            validEnd = scan.committedEnd
            if writable {
                if size > validEnd { try file.truncate(to: validEnd) }
                // What an earlier process wrote with `.none` durability may still be only in
                // the page cache: sync it, so `synced-through` offsets written from now on are true.
                try file.sync()
            }
            result.activeEnd = validEnd
        }
        result.bytes += isNewest ? validEnd : size
        return keepGoing
    }

    private func removeLeftovers(
        names: [String], listed: Set<UInt32>, manifestExists: Bool, into result: inout Result
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
            } else if let number = SegmentFile.number(fromName: name), !listed.contains(number) {
                if !manifestExists, try holdsCommittedData(path) {
                    throw StrataError.corrupt(
                        "MANIFEST is missing but segments hold committed data; restore the MANIFEST or salvage the segments",
                        file: joinPath(directory, Manifest.fileName), offset: 0)
                }
                try fileSystem.removeFile(path)
                removed = true
                result.events.append(RecoveryEvent(
                    kind: .leftoverFileRemoved, file: path, offset: 0, byteCount: 0,
                    message: "removed a segment no manifest names (left by a crash)"))
            }
        }
        if removed { try fileSystem.syncDirectory(directory) }
    }

    /// Whether a segment file no manifest names holds at least one committed transaction.
    private func holdsCommittedData(_ path: String) throws -> Bool {
        let file = try fileSystem.open(path, mode: .readOnly)
        defer { try? file.close() }
        let size = try file.size()
        guard size > SegmentHeader.size else { return false }
        return try file.withBytes(at: 0, count: size) { bytes in
            SegmentScanner.scan(bytes, after: 0) { _, _ in }.transactions > 0
        }
    }

    private func createFirstSegment(into result: inout Result) throws {
        let segment = try SegmentWriter.createSegment(1, in: directory, fileSystem: fileSystem)
        try Manifest(segments: [1], lastSequence: result.lastSequence).install(in: directory, fileSystem: fileSystem)
        result.segments[1] = segment
        result.segmentOrder = [1]
        result.activeEnd = SegmentHeader.size
        result.bytes = SegmentHeader.size
    }
}
