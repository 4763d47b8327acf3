import XCTest
@_spi(Testing) @testable import StrataStorage

/// User data that holds a byte-exact valid record frame cannot change how recovery reads the
/// log: record checksums are salted per segment and bound to the record's offset.
final class ForgedFrameTests: XCTestCase {
    func testValueHoldingAnotherSegmentsCommitFrameStillEndsInATornTail() throws {
        let fileSystem = MemoryFileSystem()
        let store = try openStore(fileSystem, segmentSize: 32 << 10, compressionThreshold: .max)
        var random = SplitMix64(seed: 11)
        func filler(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255, using: &random) } }
        var i: UInt64 = 0
        while fileSystem.contents(of: "/db/000002.seg") == nil {
            var batch = WriteBatch()
            batch.put(filler(900), forKey: StorageKey(i), in: Keyspace(1))
            try store.commit(batch)
            i += 1
        }
        // The last commit record of segment 1 declares it synced far past where segment 2 is now.
        let sealed = try XCTUnwrap(fileSystem.contents(of: "/db/000001.seg"))
        let forged = Array(sealed.suffix(RecordFormat.commitRecordSize))
        let claimed = forged.withUnsafeBytes { $0.loadLittleEndian(at: RecordFormat.headerSize + 8, as: UInt64.self) }
        let sizeBefore = try XCTUnwrap(fileSystem.contents(of: "/db/000002.seg")).count
        XCTAssertGreaterThan(Int(claimed), sizeBefore + 600)

        var batch = WriteBatch()
        batch.put(forged + filler(3000), forKey: StorageKey("carrier"), in: Keyspace(1))
        try store.commit(batch)
        try store.close()
        // A crash tore the carrier's write: only its first 600 bytes reached the disk.
        let written = try XCTUnwrap(fileSystem.contents(of: "/db/000002.seg"))
        fileSystem.setContents(Array(written.prefix(sizeBefore + 600)), of: "/db/000002.seg")

        let recovered = try openStore(fileSystem, segmentSize: 32 << 10, compressionThreshold: .max)
        XCTAssertEqual(recovered.recoveryEvents.map(\.kind), [.tornTail])
        XCTAssertEqual(recovered.recoveryEvents.first?.offset, sizeBefore)
        XCTAssertEqual(recovered.snapshot().count, Int(i))
        XCTAssertFalse(recovered.snapshot().contains(StorageKey("carrier"), in: Keyspace(1)))
    }
}
