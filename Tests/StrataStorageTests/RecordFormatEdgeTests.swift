import XCTest
@_spi(Testing) @testable import StrataStorage

/// The record decoder at the edges of its rules: the first value past each limit is refused
/// and the last value within it is accepted.
final class RecordFormatEdgeTests: XCTestCase {
    func testSequenceJustBelowTheLimitDecodesAndTheLimitItselfIsMalformed() {
        let payload = keyedPayload(key: Array("k".utf8), rest: [7])
        let below = decode(frame(kind: RecordKind.put.rawValue, sequence: RecordFormat.maxSequence - 1, payload: payload))
        XCTAssertEqual(try below.get().sequence, RecordFormat.maxSequence - 1)
        guard case .malformedPayload = damage(frame(kind: RecordKind.put.rawValue, sequence: RecordFormat.maxSequence, payload: payload)) else {
            return XCTFail("a record at sequence 2^62 must be malformed")
        }
    }

    /// A compressed put needs room for its 4-byte raw length; the zstd frame after it may be
    /// empty as far as the frame check goes (reading the value is then `.corruption`).
    func testCompressedPutWithItsRawLengthAndNoFrameDecodesButItsValueIsCorruption() throws {
        let key = Array("key".utf8)
        let withLength = frame(
            kind: RecordKind.put.rawValue, flags: RecordFormat.compressedFlag, sequence: 1,
            payload: keyedPayload(key: key, rest: [10, 0, 0, 0]))
        try withLength.withUnsafeBytes { bytes in
            let record = try RecordDecoder.decode(bytes, seal: .unsalted, at: 0).get()
            XCTAssertEqual(record.rawValueLength, 10)
            XCTAssertThrowsError(try record.value()) { error in
                XCTAssertEqual((error as? StrataError)?.code, .corruption)
            }
        }
        let shortLength = frame(
            kind: RecordKind.put.rawValue, flags: RecordFormat.compressedFlag, sequence: 1,
            payload: keyedPayload(key: key, rest: [10, 0, 0]))
        XCTAssertEqual(damage(shortLength), .malformedPayload("compressed value without its length"))
    }

    /// A key may fill its payload exactly (a delete always does; a put of an empty value too),
    /// and a key length one past the payload is malformed.
    func testKeyEndingExactlyAtThePayloadEndDecodesAndOneByteMoreIsMalformed() {
        let key = Array("abc".utf8)
        XCTAssertNil(damage(frame(kind: RecordKind.put.rawValue, sequence: 1, payload: keyedPayload(key: key))))
        var tooLong = keyedPayload(key: key)
        tooLong[4] = UInt8(key.count + 1)
        XCTAssertEqual(damage(frame(kind: RecordKind.put.rawValue, sequence: 1, payload: tooLong)),
                       .malformedPayload("key runs past the payload"))
    }

    func testRecordEndingExactlyAtTheEndOfTheBytesDecodesAndOneByteShortIsLengthPastEnd() {
        let record = frame(kind: RecordKind.put.rawValue, sequence: 1, payload: keyedPayload(key: [1], rest: [2, 3]))
        XCTAssertEqual(try decode(record).get().length, record.count)
        XCTAssertEqual(damage(Array(record.dropLast())), .lengthPastEnd)
    }

    /// A header declaring exactly the largest payload (1 GiB) is judged by the bytes that follow
    /// (here too few: `lengthPastEnd`); one byte more is an impossible length.
    func testLargestDeclaredPayloadIsPossibleAndOneByteMoreIsNot() {
        var header = frame(kind: RecordKind.put.rawValue, sequence: 1, payload: keyedPayload(key: [1]))
        header.withUnsafeMutableBytes { $0.storeLittleEndian(UInt32(RecordFormat.maxPayloadLength), at: 4) }
        XCTAssertEqual(damage(header), .lengthPastEnd)
        header.withUnsafeMutableBytes { $0.storeLittleEndian(UInt32(RecordFormat.maxPayloadLength + 1), at: 4) }
        XCTAssertEqual(damage(header), .impossibleLength)
    }

    /// A value exactly as long as the compression threshold is compressed (when that saves
    /// space); one byte shorter is stored as it is.
    func testValueOfExactlyTheThresholdIsCompressedAndOneByteShorterIsNot() {
        let policy = CompressionPolicy(threshold: 1000, level: 3)
        func flags(valueBytes: Int) -> UInt8 {
            var buffer: [UInt8] = []
            [UInt8](repeating: 7, count: valueBytes).withUnsafeBytes { value in
                _ = RecordEncoder.appendPut(
                    to: &buffer, sequence: 1, keyspace: Keyspace(1), key: StorageKey("k"), value: value, compression: policy,
                    seal: .unsalted, bufferOffset: 0)
            }
            return buffer[9]
        }
        XCTAssertEqual(flags(valueBytes: 1000), RecordFormat.compressedFlag)
        XCTAssertEqual(flags(valueBytes: 999), 0)
    }

    /// With `verifyChecksumsOnRead` off, reads decode records without their checksum
    /// (`decodeTrusted`) and still return every stored value, plain and compressed.
    func testReadsWithoutChecksumVerificationReturnTheStoredValues() throws {
        var options = Store.Options()
        options.fileSystem = MemoryFileSystem()
        options.compressionThreshold = 100
        options.verifyChecksumsOnRead = false
        let store = try Store(directory: "/db", options: options)
        let plain: [UInt8] = [1, 2, 3]
        let compressible = [UInt8](repeating: 9, count: 5000)
        var batch = WriteBatch()
        batch.put(plain, forKey: StorageKey("plain"), in: Keyspace(1))
        batch.put(compressible, forKey: StorageKey("compressed"), in: Keyspace(1))
        batch.put([], forKey: StorageKey("empty"), in: Keyspace(1))
        try store.commit(batch)
        let snapshot = store.snapshot()
        XCTAssertEqual(try snapshot.value(for: StorageKey("plain"), in: Keyspace(1)), plain)
        XCTAssertEqual(try snapshot.value(for: StorageKey("compressed"), in: Keyspace(1)), compressible)
        XCTAssertEqual(try snapshot.value(for: StorageKey("empty"), in: Keyspace(1)), [])
    }
}
