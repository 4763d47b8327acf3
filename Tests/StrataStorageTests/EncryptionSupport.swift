import XCTest
@_spi(Testing) @testable import StrataStorage

// Keys and stores for the encryption tests.

/// A 64-byte key whose bytes are `seed`, `seed + 1`, …
func testKey(_ seed: UInt8 = 1) -> [UInt8] {
    (0..<64).map { seed &+ UInt8($0) }
}

/// A new encrypted store in `/db` on a new in-memory file system (4 KiB segments).
func newEncryptedStore(key: [UInt8] = testKey()) throws -> (MemoryFileSystem, Store) {
    let fileSystem = MemoryFileSystem()
    return (fileSystem, try openStore(fileSystem, encryptionKey: key))
}

/// The value every encryption test writes under `key`: easy to search for in raw bytes.
func secretValue(_ i: Int) -> [UInt8] { Array("secret-value-\(i)-XYZZY".utf8) }

/// The key of entry `i`: easy to search for in raw bytes.
func secretKey(_ i: Int) -> StorageKey { StorageKey("primary-key-\(i)-PLUGH") }

/// Commits `count` transactions to `store`, transaction i putting `secretKey(i)` = `secretValue(i)`
/// in keyspace 1.
func commitSecrets(_ count: Int, to store: Store, from first: Int = 0) throws {
    for i in first..<(first + count) {
        var batch = WriteBatch()
        batch.put(secretValue(i), forKey: secretKey(i), in: Keyspace(1))
        try store.commit(batch)
    }
}

/// What `commitSecrets(count, …)` leaves in a store.
func secrets(_ count: Int, from first: Int = 0) -> Contents {
    [Keyspace(1): Dictionary(uniqueKeysWithValues: (first..<(first + count)).map { (secretKey($0), secretValue($0)) })]
}

/// The segment files of `/db`, by name.
func segmentNames(in fileSystem: MemoryFileSystem) throws -> [String] {
    try fileSystem.contentsOfDirectory("/db").filter { $0.hasSuffix(".seg") }.sorted()
}

/// Whether `needle` occurs anywhere in `haystack`.
func occurs(_ needle: [UInt8], in haystack: [UInt8]) -> Bool {
    guard needle.count <= haystack.count else { return false }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
}

/// Asserts that `body` throws a `StrataError` with `code` whose message contains `words`;
/// returns the error.
@discardableResult
func assertThrows<T>(
    _ code: StrataError.Code, mentioning words: String, file: StaticString = #filePath, line: UInt = #line,
    _ body: () throws -> T
) -> StrataError? {
    do {
        _ = try body()
        XCTFail("no error; expected \(code)", file: file, line: line)
    } catch let error as StrataError {
        XCTAssertEqual(error.code, code, "\(error)", file: file, line: line)
        XCTAssertTrue(error.message.contains(words), "«\(error.message)» does not say «\(words)»", file: file, line: line)
        return error
    } catch {
        XCTFail("not a StrataError: \(error)", file: file, line: line)
    }
    return nil
}
