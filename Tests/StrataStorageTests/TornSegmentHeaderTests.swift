import XCTest
@_spi(Testing) @testable import StrataStorage

/// A crash while a roll rewrites the active segment's header (to record its sealed length) can
/// tear that 64-byte write at any byte on a device without atomic sectors. The segment is still
/// the newest one listed: the store must open with every commit, take commits, and roll again.
final class TornSegmentHeaderTests: XCTestCase {
    private let segment1 = "/db/000001.seg"

    /// The file system after 12 commits in segment 1, closed; the header a roll would write.
    private func storeBeforeItsSeal(durability: Durability = .full, key: [UInt8]? = nil) throws -> (MemoryFileSystem, [UInt8]) {
        let memory = MemoryFileSystem()
        let store = try openStore(memory, segmentSize: 1 << 20, durability: durability, encryptionKey: key)
        try commitNumbered(store, 0..<12)
        try store.close()
        let bytes = try XCTUnwrap(memory.contents(of: segment1))
        let old = try bytes.withUnsafeBytes { try SegmentHeader.decode(UnsafeRawBufferPointer(rebasing: $0[0..<64]), file: segment1) }
        var sealed = old
        sealed.sealedLength = UInt64(bytes.count)
        return (memory, sealed.encoded())
    }

    /// Every mix a torn write can leave: the first `cut` bytes of one header, the rest of the other.
    private func tornHeaders(old: [UInt8], new: [UInt8]) -> [(String, [UInt8])] {
        (0...SegmentHeader.size).flatMap { cut in
            [("new prefix \(cut)", Array(new.prefix(cut) + old.dropFirst(cut))),
             ("old prefix \(cut)", Array(old.prefix(cut) + new.dropFirst(cut)))]
        }
    }

    private func assertOpensWithEveryCommit(_ memory: MemoryFileSystem, key: [UInt8]? = nil, _ name: String) throws {
        let reader = try openStore(memory, segmentSize: 1 << 20, readOnly: true, encryptionKey: key)
        try assertNumbered(reader.snapshot(), 0..<12)
        let writer = try openStore(memory, segmentSize: 1 << 20, encryptionKey: key)
        try assertNumbered(writer.snapshot(), 0..<12)
        try commitNumbered(writer, 12..<14)
        try sealActiveSegment(of: writer)
        try commitNumbered(writer, 14..<15)
        try writer.close()
        let reopened = try openStore(memory, segmentSize: 1 << 20, encryptionKey: key)
        try assertNumbered(reopened.snapshot(), 0..<15)
        XCTAssertEqual(reopened.recoveryEvents, [], name)
    }

    func testATornSealOfTheNewestSegmentOpensAtEveryByteBoundary() throws {
        let (memory, new) = try storeBeforeItsSeal()
        let old = Array(try XCTUnwrap(memory.contents(of: segment1)).prefix(64))
        for (name, header) in tornHeaders(old: old, new: new) {
            let image = memory.crashImage(.keepAll)
            image.corrupt(path: segment1, at: 0, with: header)
            XCTAssertNoThrow(try assertOpensWithEveryCommit(image, name), name)
        }
    }

    func testATornSealOfAnEncryptedSegmentOpens() throws {
        let key = Array(repeating: UInt8(7), count: 64)
        let (memory, new) = try storeBeforeItsSeal(key: key)
        let old = Array(try XCTUnwrap(memory.contents(of: segment1)).prefix(64))
        for (name, header) in tornHeaders(old: old, new: new) where name.hasSuffix(" 40") || name.hasSuffix(" 62") {
            let image = memory.crashImage(.keepAll)
            image.corrupt(path: segment1, at: 0, with: header)
            XCTAssertNoThrow(try assertOpensWithEveryCommit(image, key: key, name), name)
        }
    }

    func testAHeaderDamagedBeyondATornSealIsStillCorruption() throws {
        let (memory, new) = try storeBeforeItsSeal()
        var header = new
        header[62] ^= 0xFF  // a checksum a torn seal can leave
        header[26] ^= 0x01  // and a salt no crash changes
        memory.corrupt(path: segment1, at: 0, with: header)
        for readOnly in [true, false] {
            XCTAssertThrowsError(try openStore(memory, segmentSize: 1 << 20, readOnly: readOnly)) { error in
                XCTAssertEqual((error as? StrataError)?.code, .corruption)
                XCTAssertEqual((error as? StrataError)?.file, segment1)
                XCTAssertEqual((error as? StrataError)?.offset, 0)
            }
        }
    }

    /// The version (8), cipher (20) and kind (24) of a header whose checksum fails are not the
    /// writer's: a value this build does not read there is damage, not a newer format.
    func testAnUnreadableFieldOfTheNewestSegmentsDamagedHeaderIsCorruption() throws {
        let (memory, _) = try storeBeforeItsSeal()
        let old = Array(try XCTUnwrap(memory.contents(of: segment1)).prefix(64))
        for offset in [8, 9, 20, 21, 24] {
            let image = memory.crashImage(.keepAll)
            var header = old
            header[offset] ^= 0xFF
            image.corrupt(path: segment1, at: 0, with: header)
            for readOnly in [true, false] {
                XCTAssertThrowsError(try openStore(image, segmentSize: 1 << 20, readOnly: readOnly), "byte \(offset)") { error in
                    XCTAssertEqual((error as? StrataError)?.code, .corruption, "byte \(offset): \(error)")
                    XCTAssertEqual((error as? StrataError)?.file, segment1, "byte \(offset)")
                    XCTAssertEqual((error as? StrataError)?.offset, 0, "byte \(offset)")
                }
            }
        }
    }

    /// A newest segment that holds no record yet, only zeros past its header (a crash after the
    /// file grew, before a record landed), with a torn seal: nothing in it contradicts the header.
    func testATornSealOfAnEmptyNewestSegmentWithAZeroFilledTailOpens() throws {
        let memory = MemoryFileSystem()
        let store = try openStore(memory, segmentSize: 1 << 20)
        try commitNumbered(store, 0..<4)
        try sealActiveSegment(of: store)
        try store.close()
        let segment2 = "/db/000002.seg"
        var bytes = try XCTUnwrap(memory.contents(of: segment2))
        XCTAssertEqual(bytes.count, SegmentHeader.size)
        bytes[62] ^= 0xFF  // the crc a torn seal can leave
        memory.setContents(bytes + [UInt8](repeating: 0, count: 100), of: segment2)
        for readOnly in [true, false] {
            let reopened = try openStore(memory.crashImage(.keepAll), segmentSize: 1 << 20, readOnly: readOnly)
            try assertNumbered(reopened.snapshot(), 0..<4)
            XCTAssertTrue(reopened.recoveryEvents.contains { $0.kind == .tornTail && $0.offset == 0 }, "\(reopened.recoveryEvents)")
        }
    }

    /// Without `.full` durability the roll's header rewrite can be torn while the segment's last
    /// commit is torn too: the store opens at the commits before it.
    func testATornSealOverATornTailOpensAtTheCommitsBeforeIt() throws {
        let (memory, new) = try storeBeforeItsSeal(durability: .none)
        var bytes = try XCTUnwrap(memory.contents(of: segment1))
        bytes.replaceSubrange(0..<SegmentHeader.size, with: Array(new.prefix(40)) + bytes[40..<SegmentHeader.size])
        bytes.removeLast(3)  // the last commit record, cut
        memory.setContents(bytes, of: segment1)
        for readOnly in [true, false] {
            let reopened = try openStore(memory.crashImage(.keepAll), segmentSize: 1 << 20, readOnly: readOnly)
            try assertNumbered(reopened.snapshot(), 0..<11)
        }
    }

    func testATornHeaderOfASealedSegmentIsCorruption() throws {
        let memory = MemoryFileSystem()
        let store = try openStore(memory, segmentSize: 1 << 20)
        try commitNumbered(store, 0..<4)
        try sealActiveSegment(of: store)
        try commitNumbered(store, 4..<6)
        try store.close()
        memory.corrupt(path: segment1, at: 33, with: [0xAA])
        XCTAssertThrowsError(try openStore(memory, segmentSize: 1 << 20, readOnly: true)) { error in
            XCTAssertEqual((error as? StrataError)?.code, .corruption)
            XCTAssertEqual((error as? StrataError)?.offset, 0)
        }
    }
}
