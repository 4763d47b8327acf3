import XCTest

@_spi(Testing) @testable import StrataStorage

final class ZstdCodecTests: XCTestCase {
    private let limit = 64 << 20

    private func randomBytes(_ count: Int, using generator: inout SplitMix64) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    private func compressibleBytes(_ count: Int) -> [UInt8] {
        let words = Array("the quick brown fox jumps over the lazy dog; key=0001 value=abc ".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        var counter = 0
        while bytes.count < count {
            bytes.append(contentsOf: words.prefix(count - bytes.count))
            counter += 1
            if bytes.count < count { bytes.append(UInt8(truncatingIfNeeded: counter)) }
        }
        return bytes
    }

    private func compress(_ bytes: [UInt8], level: Int32 = 3) -> [UInt8] {
        bytes.withUnsafeBytes { ZstdCodec.compress($0, level: level) }
    }

    private func decompress(_ bytes: [UInt8], size: Int, limit: Int? = nil) throws -> [UInt8] {
        try bytes.withUnsafeBytes {
            try ZstdCodec.decompress($0, decompressedSize: size, limit: limit ?? self.limit)
        }
    }

    private func assertCorruption(
        _ body: @autoclosure () throws -> [UInt8], _ mentioning: String? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try body(), file: file, line: line) { error in
            guard let error = error as? StrataError else {
                return XCTFail("not a StrataError: \(error)", file: file, line: line)
            }
            XCTAssertEqual(error.code, .corruption, file: file, line: line)
            if let mentioning {
                XCTAssertTrue(
                    error.message.contains(mentioning), "\(error.message)", file: file, line: line)
            }
        }
    }

    func testRoundTripSeveralSizes() throws {
        var generator = seededGenerator(0x25D_0001)
        for size in [0, 1, 7, 100, 4096, 65_537, 1 << 20] {
            for original in [randomBytes(size, using: &generator), compressibleBytes(size)] {
                for level: Int32 in [1, 3, 19] where size <= 65_537 || level != 19 {
                    let compressed = compress(original, level: level)
                    let decoded = try decompress(compressed, size: size)
                    XCTAssertEqual(decoded, original, "size \(size) level \(level)")
                }
            }
        }
    }

    func testCompressibleDataShrinksAndFrameIsMagicless() {
        let original = compressibleBytes(100_000)
        let compressed = compress(original)
        XCTAssertLessThan(compressed.count, original.count / 10)
        // A standard frame starts with the magic 28 B5 2F FD; a magicless one does not.
        XCTAssertNotEqual(Array(compressed.prefix(4)), [0x28, 0xB5, 0x2F, 0xFD])
    }

    func testEmptyInputRoundTrips() throws {
        let compressed = compress([])
        XCTAssertFalse(compressed.isEmpty)
        XCTAssertEqual(try decompress(compressed, size: 0), [])
        let empty = UnsafeRawBufferPointer(start: nil, count: 0)
        let fromNil = ZstdCodec.compress(empty)
        XCTAssertEqual(try decompress(fromNil, size: 0), [])
        // An empty frame declared as one byte is a size mismatch.
        assertCorruption(try self.decompress(compressed, size: 1), "does not decode")
    }

    func testRefusesSizesOverLimitBeforeAllocating() {
        let compressed = compress(compressibleBytes(1000))
        // Allocating either of these would trap or exhaust memory; they must be refused first.
        assertCorruption(try self.decompress(compressed, size: Int.max, limit: 1 << 20), "limit")
        assertCorruption(
            try self.decompress(compressed, size: 1 << 50, limit: 1 << 20), "\(1 << 50)")
        assertCorruption(try self.decompress(compressed, size: 1001, limit: 1000), "1001")
        assertCorruption(try self.decompress(compressed, size: -1), "-1")
        assertCorruption(try self.decompress(compressed, size: Int.min))
        // Exactly at the limit is fine.
        XCTAssertNoThrow(try decompress(compressed, size: 1000, limit: 1000))
    }

    func testGarbageIsCorruption() {
        var generator = seededGenerator(0x25D_0002)
        assertCorruption(try self.decompress([], size: 0), "empty")
        assertCorruption(try self.decompress([], size: 10), "does not decode")
        assertCorruption(try self.decompress([UInt8](repeating: 0xFF, count: 64), size: 64))
        assertCorruption(try self.decompress([UInt8](repeating: 0, count: 64), size: 64))
        assertCorruption(try self.decompress(Array("this is not zstd at all".utf8), size: 100))
        // A standard (magic-prefixed) frame is not a magicless one.
        let standard: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD] + compress(Array("hello".utf8))
        assertCorruption(try self.decompress(standard, size: 5))
        // Random bytes: a short run can happen to be a valid tiny frame, so only require that
        // decoding never traps and never yields anything but the declared size.
        for size in [1, 2, 3, 5, 16, 100, 4096] {
            for _ in 0..<200 {
                let garbage = randomBytes(size, using: &generator)
                for declared in [0, 100] {
                    do {
                        let decoded = try decompress(garbage, size: declared)
                        XCTAssertEqual(decoded.count, declared)
                    } catch let error as StrataError {
                        XCTAssertEqual(error.code, .corruption)
                    } catch {
                        XCTFail("unexpected \(error)")
                    }
                }
            }
        }
    }

    func testTruncatedInputIsCorruption() {
        var generator = seededGenerator(0x25D_0003)
        for original in [compressibleBytes(50_000), randomBytes(5000, using: &generator), compressibleBytes(10)] {
            let compressed = compress(original)
            for cut in Set([0, 1, 2, compressed.count / 2, compressed.count - 1]) {
                assertCorruption(
                    try self.decompress(Array(compressed.prefix(cut)), size: original.count),
                    "does not decode")
            }
        }
    }

    func testWrongDeclaredSizeIsCorruption() {
        let original = compressibleBytes(10_000)
        let compressed = compress(original)
        assertCorruption(try self.decompress(compressed, size: 9_999), "does not decode")
        assertCorruption(try self.decompress(compressed, size: 10_001), "expected 10001")
        assertCorruption(try self.decompress(compressed, size: 0), "does not decode")
        XCTAssertEqual(try decompress(compressed, size: 10_000), original)
    }

    func testFlippedBytesNeverTrap() {
        let original = compressibleBytes(20_000)
        let compressed = compress(original)
        var generator = seededGenerator(0x25D_0004)
        for _ in 0..<500 {
            var damaged = compressed
            let index = Int.random(in: 0..<damaged.count, using: &generator)
            damaged[index] ^= UInt8.random(in: 1...255, using: &generator)
            // Either a clean error or (rarely, for literal bytes) different content: no trap.
            do {
                let decoded = try decompress(damaged, size: original.count)
                XCTAssertEqual(decoded.count, original.count)
            } catch let error as StrataError {
                XCTAssertEqual(error.code, .corruption)
            } catch {
                XCTFail("unexpected \(error)")
            }
        }
    }

    func testConcurrentUse() async throws {
        let inputs = (0..<16).map { index in compressibleBytes(1000 + index * 997) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for input in inputs {
                group.addTask {
                    for _ in 0..<50 {
                        let compressed = input.withUnsafeBytes { ZstdCodec.compress($0) }
                        let decoded = try compressed.withUnsafeBytes {
                            try ZstdCodec.decompress(
                                $0, decompressedSize: input.count, limit: input.count)
                        }
                        XCTAssertEqual(decoded, input)
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
