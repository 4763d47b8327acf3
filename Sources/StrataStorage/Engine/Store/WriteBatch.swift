/// A set of puts and deletes that ``Store/commit(_:durability:)`` applies atomically: after a
/// crash either all of them are there or none.
///
/// Operations apply in the order they were added; a later operation on the same key wins.
/// Values are copied into one contiguous buffer, so building a batch of many small values
/// costs one growing allocation, not one per value.
///
/// A value type; `Sendable`.
public struct WriteBatch: Sendable {
    struct Operation: Sendable {
        var keyspace: Keyspace
        var key: StorageKey
        /// Offset of the value in `values`, or -1 for a delete.
        var valueStart: Int
        var valueCount: Int
        var isDelete: Bool { valueStart < 0 }
    }

    private(set) var operations: [Operation] = []
    private(set) var values: [UInt8] = []

    /// An empty batch.
    public init() {}

    /// The number of operations.
    public var count: Int { operations.count }

    /// Whether the batch has no operations.
    public var isEmpty: Bool { operations.isEmpty }

    /// Adds a put of `value` under `key` in `keyspace`.
    /// - Complexity: O(value.count) amortized.
    public mutating func put<Bytes: Sequence>(
        _ value: Bytes, forKey key: StorageKey, in keyspace: Keyspace
    ) where Bytes.Element == UInt8 {
        let start = values.count
        values.append(contentsOf: value)
        operations.append(Operation(
            keyspace: keyspace, key: key, valueStart: start, valueCount: values.count - start))
    }

    /// Adds a put of `value` under `key` in `keyspace`.
    /// - Complexity: O(value.count) amortized.
    public mutating func put(_ value: [UInt8], forKey key: StorageKey, in keyspace: Keyspace) {
        let start = values.count
        values.append(contentsOf: value)
        operations.append(Operation(keyspace: keyspace, key: key, valueStart: start, valueCount: value.count))
    }

    /// Adds a put whose value `body` appends to the buffer it is given (the batch's own value
    /// buffer: no intermediate array). `body` must only append.
    /// - Complexity: O(the bytes appended) amortized.
    public mutating func put(
        forKey key: StorageKey, in keyspace: Keyspace, appendingValueWith body: (inout [UInt8]) throws -> Void
    ) rethrows {
        let start = values.count
        try body(&values)
        operations.append(Operation(keyspace: keyspace, key: key, valueStart: start, valueCount: values.count - start))
    }

    /// Adds a delete of `key` in `keyspace`. Deleting a missing key is not an error.
    public mutating func delete(_ key: StorageKey, in keyspace: Keyspace) {
        operations.append(Operation(keyspace: keyspace, key: key, valueStart: -1, valueCount: 0))
    }

    /// Removes every operation, keeping the allocated capacity.
    public mutating func removeAll() {
        operations.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
    }

    /// An upper bound of the bytes the batch takes in a segment.
    var encodedSizeBound: Int {
        operations.reduce(RecordFormat.commitRecordSize) {
            $0 + RecordFormat.headerSize + RecordFormat.keyPrefixSize + $1.key.count + $1.valueCount + 4
        }
    }

    /// Checks every operation against the limits.
    /// - Throws: ``StrataError`` `.invalidArgument` naming the first operation out of range.
    func validate(maxValueSize: Int) throws {
        for (index, operation) in operations.enumerated() {
            if operation.key.count > RecordFormat.maxKeyLength {
                throw StrataError(
                    .invalidArgument,
                    "operation \(index): key of \(operation.key.count) bytes is longer than \(RecordFormat.maxKeyLength)")
            }
            if operation.valueCount > maxValueSize {
                throw StrataError(
                    .invalidArgument,
                    "operation \(index): value of \(operation.valueCount) bytes is larger than maxValueSize \(maxValueSize)")
            }
        }
    }

    func withValue<R>(of operation: Operation, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        values.withUnsafeBytes {
            body(UnsafeRawBufferPointer(rebasing: $0[operation.valueStart..<(operation.valueStart + operation.valueCount)]))
        }
    }
}
