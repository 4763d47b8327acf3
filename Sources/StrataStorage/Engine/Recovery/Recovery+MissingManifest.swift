// Recovery when the directory has no MANIFEST.
//
// A MANIFEST is installed before the first commit, so segments without one hold data only if
// the MANIFEST was lost. The rule: never create a new store over files that hold data.
// - No segment holds a byte past its header (a crash while the first segment was being
//   created): a new store (read-write) or `.notFound` (read-only).
// - Some segment does: `.corruption` naming the MANIFEST, the first such segment and where its
//   first damage lies; nothing is written or removed. With salvage (read-only), the segments
//   found in the directory are read instead: compacted ones first, then log segments, each
//   by number, as a MANIFEST would list them.

extension Recovery {
    /// A segment file found in the directory and what it holds.
    struct FoundSegment {
        var number: UInt32
        var path: String
        /// The kind its header declares; nil when the header is damaged.
        var kind: SegmentKind?
        var transactions: Int
        /// The first record that does not decode, if any.
        var damage: (offset: Int, message: String)?
    }

    /// The segment files in `names` that hold bytes past their header, by number.
    /// - Throws: ``StrataError`` `.unsupportedFormat` for a segment of a newer format, `.io`.
    func segmentsHoldingData(names: [String]) throws -> [FoundSegment] {
        var found: [FoundSegment] = []
        for name in names {
            guard let number = SegmentFile.number(fromName: name) else { continue }
            let path = joinPath(directory, name)
            if let segment = try inspectSegment(number, path: path) { found.append(segment) }
        }
        return found.sorted { $0.number < $1.number }
    }

    /// What one segment file holds, or nil when it holds nothing past its header.
    private func inspectSegment(_ number: UInt32, path: String) throws -> FoundSegment? {
        let file = try fileSystem.open(path, mode: .readOnly)
        defer { try? file.close() }
        let size = try file.size()
        guard size > SegmentHeader.size else { return nil }
        return try file.withBytes(at: 0, count: size) { bytes -> FoundSegment? in
            let records = UnsafeRawBufferPointer(rebasing: bytes[SegmentHeader.size...])
            guard records.contains(where: { $0 != 0 }) else { return nil }
            var kind: SegmentKind?
            var seal = RecordSeal.unsalted
            do {
                let header = try SegmentHeader.decode(bytes, file: path)
                kind = header.kind
                seal = try keyedSeal(for: header, path: path, decidesKey: true)
                // A dictionary that does not load leaves the scan to stop at its record.
                seal = seal.decompressing(with: try? SegmentDictionary.load(for: header, seal: seal, from: file, size: size, path: path))
            } catch let error as StrataError where error.code == .unsupportedFormat || error.code == .invalidKey {
                throw error  // a newer format's file, or another key: never judge what this build cannot read
            } catch {
                kind = nil
            }
            let scan = kind == .compacted
                ? SegmentScanner.scanCompacted(bytes, seal: seal, after: 0) { _, _ in nil }
                : SegmentScanner.scan(bytes, seal: seal, after: 0) { _, _ in }
            return FoundSegment(
                number: number, path: path, kind: kind, transactions: scan.transactions,
                damage: scan.damage.map { ($0.offset, $0.kind.message) })
        }
    }

    /// The refusal to open a directory whose MANIFEST is missing while `found` hold data.
    func missingManifestError(_ found: [FoundSegment]) -> StrataError {
        let first = found[0]
        var message = "MANIFEST is missing but \(found.count) segment file(s) hold data; "
            + "\(SegmentFile.name(for: first.number)) holds \(first.transactions) committed transaction(s)"
        if let damage = first.damage {
            message += " and is damaged at byte \(damage.offset) (\(damage.message))"
        }
        message += ". Restore the MANIFEST, or open read-only with salvage to read the segments found"
        return StrataError.corrupt(message, file: joinPath(directory, Manifest.fileName), offset: 0)
    }

    /// The order a salvage reads `found` in without a MANIFEST: compacted segments first, then
    /// the others, each by number.
    static func salvageOrder(_ found: [FoundSegment]) -> [UInt32] {
        found.filter { $0.kind == .compacted }.map(\.number) + found.filter { $0.kind != .compacted }.map(\.number)
    }
}
