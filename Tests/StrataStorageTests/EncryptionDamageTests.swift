import XCTest
@_spi(Testing) @testable import StrataStorage

/// Damage in encrypted stores: tampering is `.corruption` naming file and offset, with or
/// without a checksum made to match, and a torn tail still ends the log.
final class EncryptionDamageTests: XCTestCase {
    /// A closed encrypted store in one segment with `commits` synced commits.
    func encryptedStore(commits: Int = 5) throws -> MemoryFileSystem {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 1 << 20, encryptionKey: testKey())
        try commitSecrets(commits, to: store)
        try store.close()
        return fileSystem
    }

    /// Adds `delta` to the byte at `offset` of the record that starts at `record` in the segment
    /// at `path`; with `reseal`, stores the checksum that the changed record then has.
    func tamper(_ path: String, record: Int, byte offset: Int, delta: UInt8 = 0x5A, reseal: Bool, in fileSystem: MemoryFileSystem) throws {
        var bytes = try XCTUnwrap(fileSystem.contents(of: path))
        bytes[offset] &+= delta
        if reseal {
            let header = try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: path) }
            let length = RecordFormat.headerSize + Int(bytes.withUnsafeBytes { $0.loadLittleEndian(at: record + 4, as: UInt32.self) })
            let end = min(record + length, bytes.count)
            bytes.withUnsafeMutableBytes { raw in
                RecordEncoder.reseal(UnsafeMutableRawBufferPointer(rebasing: raw[record..<end]), seal: header.recordSeal, at: record)
            }
        }
        fileSystem.corrupt(path: path, at: 0, with: bytes)
    }

    func testATamperedByteIsCorruptionAtOpenWithOrWithoutAValidChecksum() throws {
        for reseal in [false, true] {
            let fileSystem = try encryptedStore()
            try tamper("/db/000001.seg", record: 64, byte: 64 + 40, reseal: reseal, in: fileSystem)
            let error = assertThrows(.corruption, mentioning: reseal ? "does not authenticate" : "checksum mismatch") {
                try openStore(fileSystem, encryptionKey: testKey())
            }
            XCTAssertEqual(error?.file, "/db/000001.seg")
            XCTAssertEqual(error?.offset, 64)
        }
    }

    func testEveryByteOfARecordTamperedBehindAValidChecksumIsCorruption() throws {
        let pristine = try encryptedStore()
        let path = "/db/000001.seg"
        let length = RecordFormat.headerSize + 6 + secretKey(0).count + secretValue(0).count + SegmentCipher.overhead
        for offset in (64 + 4)..<(64 + length) {
            let fileSystem = MemoryFileSystem()
            fileSystem.setContents(try XCTUnwrap(pristine.contents(of: path)), of: path)
            fileSystem.setContents(try XCTUnwrap(pristine.contents(of: "/db/MANIFEST")), of: "/db/MANIFEST")
            try tamper(path, record: 64, byte: offset, delta: 1, reseal: true, in: fileSystem)
            do {
                let store = try openStore(fileSystem, encryptionKey: testKey())
                XCTFail("byte \(offset) changed, yet the store opened with \(try contents(of: store.snapshot()))")
            } catch let error as StrataError {
                XCTAssertEqual(error.code, .corruption, "byte \(offset): \(error)")
                XCTAssertEqual(error.file, path, "byte \(offset)")
            }
        }
    }

    func testATamperedValueIsCorruptionWhenReadNeverOtherBytes() throws {
        for reseal in [false, true] {
            let fileSystem = MemoryFileSystem()
            let store = try openStore(fileSystem, segmentSize: 1 << 20, encryptionKey: testKey())
            try commitSecrets(3, to: store)
            XCTAssertEqual(try store.snapshot().value(for: secretKey(0), in: Keyspace(1)), secretValue(0))
            try tamper("/db/000001.seg", record: 64, byte: 64 + 45, reseal: reseal, in: fileSystem)
            let error = assertThrows(.corruption, mentioning: reseal ? "does not authenticate" : "checksum mismatch") {
                try store.snapshot().value(for: secretKey(0), in: Keyspace(1))
            }
            XCTAssertEqual(error?.file, "/db/000001.seg")
            XCTAssertEqual(error?.offset, 64)
            XCTAssertEqual(try store.snapshot().value(for: secretKey(1), in: Keyspace(1)), secretValue(1))
        }
    }

    func testATornTailIsCutAndTheStoreGoesOn() throws {
        let fileSystem = try encryptedStore(commits: 4)
        let path = "/db/000001.seg"
        let whole = try XCTUnwrap(fileSystem.contents(of: path))
        // The last transaction's commit record is cut in the middle: a crash while appending.
        fileSystem.setContents(Array(whole.dropLast(RecordFormat.commitRecordSize / 2)), of: path)
        let store = try openStore(fileSystem, encryptionKey: testKey())
        XCTAssertEqual(store.recoveryEvents.map(\.kind), [.tornTail, .uncommittedTransaction])
        XCTAssertEqual(try contents(of: store.snapshot()), secrets(3))
        try commitSecrets(2, to: store, from: 10)
        try store.close()
        var expected = secrets(3)
        expected[Keyspace(1)]!.merge(secrets(2, from: 10)[Keyspace(1)]!) { $1 }
        let reopened = try openStore(fileSystem, encryptionKey: testKey())
        XCTAssertEqual(try contents(of: reopened.snapshot()), expected)
        XCTAssertEqual(reopened.recoveryEvents, [])
    }

    func testSalvageKeepsWhatPrecedesDamageInAnEncryptedStore() throws {
        let (fileSystem, store) = try newEncryptedStore()
        var committed = 0
        while try segmentNames(in: fileSystem).count < 3 {
            try commitSecrets(1, to: store, from: committed)
            committed += 1
        }
        try store.close()
        let sealed = try XCTUnwrap(fileSystem.contents(of: "/db/000001.seg"))
        let inFirst = sealed.count
        try tamper("/db/000002.seg", record: 64, byte: 64 + 40, reseal: true, in: fileSystem)
        assertThrows(.corruption, mentioning: "does not authenticate") { try openStore(fileSystem, encryptionKey: testKey()) }
        let salvaged = try openStore(fileSystem, readOnly: true, salvage: true, encryptionKey: testKey())
        XCTAssertEqual(salvaged.recoveryEvents.first?.kind, .salvagedCorruption)
        XCTAssertEqual(salvaged.recoveryEvents.first?.file, "/db/000002.seg")
        let kept = try contents(of: salvaged.snapshot())[Keyspace(1)] ?? [:]
        XCTAssertGreaterThan(kept.count, 0, "segment 1 (\(inFirst) bytes) is kept")
        for (key, value) in kept { XCTAssertEqual(secrets(committed)[Keyspace(1)]![key], value) }
    }

    func testSeededByteChangesAnywhereInTheRecordsNeverReadAsOtherData() throws {
        let pristine = MemoryFileSystem()
        let store = try openStore(pristine, encryptionKey: testKey())
        try commitSecrets(120, to: store)
        _ = try store.compact()
        try commitSecrets(60, to: store, from: 200)
        let original = try contents(of: store.snapshot())[Keyspace(1)]!
        try store.close()
        let names = try pristine.contentsOfDirectory("/db")
        var random = seededGenerator(2026)
        var outcomes = (refused: 0, opened: 0)
        for round in 0..<300 {
            let fileSystem = MemoryFileSystem()
            for name in names { fileSystem.setContents(try XCTUnwrap(pristine.contents(of: "/db/\(name)")), of: "/db/\(name)") }
            let segments = try segmentNames(in: fileSystem)
            let path = "/db/" + segments[Int.random(in: 0..<segments.count, using: &random)]
            let size = try XCTUnwrap(fileSystem.contents(of: path)).count
            guard size > SegmentHeader.size else { continue }
            let offset = Int.random(in: SegmentHeader.size..<size, using: &random)
            let reseal = Bool.random(using: &random)
            try tamper(path, record: try recordStart(containing: offset, in: path, fileSystem), byte: offset,
                       delta: UInt8.random(in: 1...255, using: &random), reseal: reseal, in: fileSystem)
            do {
                let opened = try openStore(fileSystem, readOnly: true, encryptionKey: testKey())
                outcomes.opened += 1
                for key in opened.snapshot().keys(in: Keyspace(1)) {
                    do {
                        let value = try opened.snapshot().value(for: key, in: Keyspace(1))
                        XCTAssertEqual(value, original[key], "round \(round): another value")
                    } catch let error as StrataError {
                        XCTAssertEqual(error.code, .corruption, "round \(round): \(error)")
                    }
                }
            } catch let error as StrataError {
                XCTAssertEqual(error.code, .corruption, "round \(round), \(path) byte \(offset): \(error)")
                XCTAssertEqual(error.file, path, "round \(round)")
                outcomes.refused += 1
            }
        }
        XCTAssertGreaterThan(outcomes.refused, 200, "\(outcomes)")
        print("seeded byte changes in an encrypted store: \(outcomes.refused) refused at open, \(outcomes.opened) opened (a torn-looking tail cut)")
    }

    /// Where the record that holds byte `offset` of the segment at `path` starts (frame
    /// lengths are in the clear).
    private func recordStart(containing offset: Int, in path: String, _ fileSystem: MemoryFileSystem) throws -> Int {
        let bytes = try XCTUnwrap(fileSystem.contents(of: path))
        var start = SegmentHeader.size
        while true {
            let length = RecordFormat.headerSize + Int(bytes.withUnsafeBytes { $0.loadLittleEndian(at: start + 4, as: UInt32.self) })
            if offset < start + length || start + length >= bytes.count { return start }
            start += length
        }
    }

    func testAMissingManifestStillNamesTheKeyProblemFirst() throws {
        let fileSystem = try encryptedStore()
        try fileSystem.removeFile("/db/MANIFEST")
        assertThrows(.invalidKey, mentioning: "not the one") { try openStore(fileSystem, encryptionKey: testKey(9)) }
        assertThrows(.corruption, mentioning: "MANIFEST is missing but 1 segment file(s) hold data; 000001.seg holds 5 committed") {
            try openStore(fileSystem, encryptionKey: testKey())
        }
    }
}
