import XCTest
@_spi(Testing) @testable import StrataStorage

/// Encrypted stores through compaction, read-only opens and followers.
final class EncryptedEngineTests: XCTestCase {
    func testCompactionWritesEncryptedSegmentsThatReopenWithTheKey() throws {
        let (fileSystem, store) = try newEncryptedStore()
        try commitSecrets(150, to: store)
        try commitSecrets(40, to: store)   // overwrites: dead records for the compactor
        let before = try contents(of: store.snapshot())
        let report = try store.compact()
        XCTAssertTrue(report.didCompact)
        XCTAssertGreaterThan(report.recordsCopied, 0)
        XCTAssertEqual(try contents(of: store.snapshot()), before)
        try commitSecrets(5, to: store, from: 500)
        let after = try contents(of: store.snapshot())
        try store.close()

        var compacted = 0
        for name in try segmentNames(in: fileSystem) {
            let bytes = try XCTUnwrap(fileSystem.contents(of: "/db/\(name)"))
            let header = try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: name) }
            XCTAssertEqual(header.cipherID, SegmentCipher.id, name)
            if header.kind == .compacted { compacted += 1 }
        }
        XCTAssertGreaterThan(compacted, 0)
        let reopened = try openStore(fileSystem, encryptionKey: testKey())
        XCTAssertEqual(try contents(of: reopened.snapshot()), after)
        try reopened.close()
        assertThrows(.invalidKey, mentioning: "not the one") { try openStore(fileSystem, encryptionKey: testKey(3)) }
    }

    func testAReadOnlyOpenReadsAnEncryptedStoreBesideItsWriter() throws {
        let (fileSystem, writer) = try newEncryptedStore()
        try commitSecrets(60, to: writer)
        let reader = try openStore(fileSystem, readOnly: true, encryptionKey: testKey())
        XCTAssertEqual(try contents(of: reader.snapshot()), secrets(60))
        assertThrows(.invalidKey, mentioning: "the store is encrypted") { try openStore(fileSystem, readOnly: true) }
        assertThrows(.readOnly, mentioning: "read-only") { try commitSecrets(1, to: reader) }
    }

    func testAFollowerCatchesUpWithAnEncryptedWriterThroughRollsAndCompaction() throws {
        let (fileSystem, writer) = try newEncryptedStore()
        try commitSecrets(10, to: writer)
        let follower = try openStore(fileSystem, readOnly: true, encryptionKey: testKey())
        try commitSecrets(100, to: writer, from: 10)
        XCTAssertTrue(try follower.refresh())
        XCTAssertEqual(try contents(of: follower.snapshot()), secrets(110))
        _ = try writer.compact()
        try commitSecrets(5, to: writer, from: 110)
        XCTAssertTrue(try follower.refresh())
        XCTAssertEqual(try contents(of: follower.snapshot()), secrets(115))
    }
}
