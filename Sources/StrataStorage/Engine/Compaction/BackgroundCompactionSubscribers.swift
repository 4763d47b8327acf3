// The streams of `Store.backgroundCompactionUpdates` one background compactor feeds.
//
// Not thread-safe by itself: guarded by the compactor's lock (BackgroundCompactor.swift).
// `yield` runs under that lock, so every stream sees the statuses in the order they were made;
// `finish` must not (a stream's `onTermination` takes the lock to unregister).

struct BackgroundCompactionSubscribers {
    typealias Stream = AsyncStream<BackgroundCompactionStatus>

    /// How many statuses a stream keeps for a consumer that does not keep up (the newest
    /// win). A run yields at most about 100 progress statuses (one per 1 % copied), so this
    /// holds more than two whole runs.
    static let buffered = 256

    private var streams: [UInt64: Stream.Continuation] = [:]
    private var nextID: UInt64 = 0

    /// Registers a stream that starts with `current`; `unregister` is called with its id when
    /// its consumer goes away.
    mutating func add(
        current: BackgroundCompactionStatus, unregister: @escaping @Sendable (UInt64) -> Void
    ) -> Stream {
        let (stream, continuation) = Stream.makeStream(bufferingPolicy: .bufferingNewest(Self.buffered))
        let id = nextID
        nextID += 1
        continuation.yield(current)
        continuation.onTermination = { _ in unregister(id) }
        streams[id] = continuation
        return stream
    }

    /// The streams registered.
    var count: Int { streams.count }

    mutating func remove(_ id: UInt64) {
        streams[id] = nil
    }

    /// Sends `status` to every stream.
    func yield(_ status: BackgroundCompactionStatus) {
        for continuation in streams.values { continuation.yield(status) }
    }

    /// Unregisters every stream and returns them, to be finished outside the lock.
    mutating func takeAll() -> [Stream.Continuation] {
        defer { streams.removeAll() }
        return Array(streams.values)
    }
}
