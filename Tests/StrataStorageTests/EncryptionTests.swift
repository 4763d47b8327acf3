import XCTest
@_spi(Testing) @testable import StrataStorage

/// Encrypted stores: what they write, and which keys open them.
final class EncryptionTests: XCTestCase {
    func testAnEncryptedStoreRoundTripsAcrossRollsAndReopens() throws {
        let (fileSystem, store) = try newEncryptedStore()
        try commitSecrets(200, to: store)
        var delete = WriteBatch()
        delete.delete(secretKey(0), in: Keyspace(1))
        try store.commit(delete)
        var expected = secrets(200)
        expected[Keyspace(1)]![secretKey(0)] = nil
        XCTAssertEqual(try contents(of: store.snapshot()), expected)
        try store.close()
        XCTAssertGreaterThan(try segmentNames(in: fileSystem).count, 2, "the workload should roll")

        let reopened = try openStore(fileSystem, encryptionKey: testKey())
        XCTAssertEqual(try contents(of: reopened.snapshot()), expected)
        XCTAssertEqual(reopened.recoveryEvents, [])
    }

    func testEverySegmentHeaderNamesTheCipher() throws {
        let (fileSystem, store) = try newEncryptedStore()
        try commitSecrets(100, to: store)
        try store.close()
        for name in try segmentNames(in: fileSystem) {
            let bytes = try XCTUnwrap(fileSystem.contents(of: "/db/\(name)"))
            let header = try bytes.withUnsafeBytes { try SegmentHeader.decode($0, file: name) }
            XCTAssertEqual(header.cipherID, SegmentCipher.id, name)
            XCTAssertEqual(header.keySalt.count, StoreKey.saltLength)
        }
    }

    func testNeitherKeysNorValuesAppearInTheFiles() throws {
        for encrypted in [false, true] {
            let fileSystem = MemoryFileSystem()
            let store = try openStore(fileSystem, compressionThreshold: .max, encryptionKey: encrypted ? testKey() : nil)
            try commitSecrets(50, to: store)
            _ = try store.compact()
            try commitSecrets(5, to: store, from: 50)
            try store.close()
            let files = try fileSystem.contentsOfDirectory("/db").compactMap { fileSystem.contents(of: "/db/\($0)") }
            let found = files.contains { file in
                occurs(Array("XYZZY".utf8), in: file) || occurs(Array("PLUGH".utf8), in: file)
            }
            XCTAssertEqual(found, !encrypted, encrypted ? "plaintext on disk" : "the search finds nothing even in a plain store")
        }
    }

    func testTheSameRecordWrittenTwiceHasDifferentBytes() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 1 << 20, encryptionKey: testKey())
        try commitSecrets(1, to: store)
        try commitSecrets(1, to: store)
        try store.close()
        let bytes = try XCTUnwrap(fileSystem.contents(of: "/db/000001.seg"))
        let recordLength = RecordFormat.headerSize + 6 + secretKey(0).count + secretValue(0).count + SegmentCipher.overhead
        let second = SegmentHeader.size + recordLength + RecordFormat.commitRecordSize
        let nonce = { (start: Int) in Array(bytes[(start + RecordFormat.headerSize)..<(start + RecordFormat.headerSize + 12)]) }
        XCTAssertNotEqual(nonce(SegmentHeader.size), nonce(second), "a nonce repeated")
        XCTAssertNotEqual(bytes[SegmentHeader.size + 30..<SegmentHeader.size + recordLength],
                          bytes[second + 30..<second + recordLength])
    }

    func testTheWrongKeyIsInvalidKeyAtOpen() throws {
        let fileSystem = MemoryFileSystem()
        try openStore(fileSystem, encryptionKey: testKey(1)).close()
        assertThrows(.invalidKey, mentioning: "not the one the store was encrypted with") {
            try openStore(fileSystem, encryptionKey: testKey(2))
        }
        assertThrows(.invalidKey, mentioning: "not the one") {
            try openStore(fileSystem, readOnly: true, encryptionKey: testKey(2))
        }
    }

    func testNoKeyForAnEncryptedStoreIsInvalidKey() throws {
        let (fileSystem, store) = try newEncryptedStore()
        try commitSecrets(3, to: store)
        try store.close()
        assertThrows(.invalidKey, mentioning: "the store is encrypted") { try openStore(fileSystem) }
        assertThrows(.invalidKey, mentioning: "the store is encrypted") { try openStore(fileSystem, readOnly: true) }
    }

    func testAKeyForAPlainStoreIsInvalidKey() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem)
        try commitSecrets(3, to: store)
        try store.close()
        assertThrows(.invalidKey, mentioning: "the store is not encrypted") { try openStore(fileSystem, encryptionKey: testKey()) }
        XCTAssertEqual(try contents(of: openStore(fileSystem).snapshot()), secrets(3), "the refused open changed nothing")
    }

    func testAKeyThatIsNot64BytesIsInvalidKey() throws {
        for length in [0, 32, 63, 65] {
            let fileSystem = MemoryFileSystem()
            assertThrows(.invalidKey, mentioning: "must be 64 bytes long; this one has \(length)") {
                try openStore(fileSystem, encryptionKey: Array(repeating: 7, count: length))
            }
            XCTAssertFalse(fileSystem.exists("/db/MANIFEST"), "nothing is created with a bad key")
        }
    }

    func testASegmentUnderAnotherKeyAfterTheFirstIsCorruption() throws {
        func twoSegments(_ key: [UInt8]) throws -> MemoryFileSystem {
            let (fileSystem, store) = try newEncryptedStore(key: key)
            while try segmentNames(in: fileSystem).count < 3 { try commitSecrets(10, to: store) }
            try store.close()
            return fileSystem
        }
        let mine = try twoSegments(testKey(1))
        let theirs = try twoSegments(testKey(2))
        mine.setContents(try XCTUnwrap(theirs.contents(of: "/db/000002.seg")), of: "/db/000002.seg")
        let error = assertThrows(.corruption, mentioning: "not the one the store was encrypted with, unlike the segments read before it") {
            try openStore(mine, encryptionKey: testKey(1))
        }
        XCTAssertEqual(error?.file, "/db/000002.seg")
    }
}
