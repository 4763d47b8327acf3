import Foundation

/// A running `StrataKillWriter` child and the events it has reported so far (the protocol is
/// in Tests/KillWriter/main.swift).
struct KillWriterProcess {
    /// One line of the child's protocol.
    enum Event: Equatable {
        case ready(Int)
        case committed(Int, digest: UInt64)
        case compactionBegan(Int)
        case compactionEnded(Int)
        case failed(String)
    }

    private let child: ChildProcess

    /// Starts the child on `directory` with the workload of `seed`.
    /// - Throws: when the process cannot be started.
    /// With `backgroundCompaction`, the child's store runs its background compactor too.
    init(
        directory: URL, seed: UInt64, segmentSize: Int, compactEvery: Int, lastCommit: Int,
        backgroundCompaction: Bool = false
    ) throws {
        child = try ChildProcess(
            executable: "StrataKillWriter",
            arguments: [directory.path, "\(seed)", "\(segmentSize)", "\(compactEvery)", "\(lastCommit)"]
                + (backgroundCompaction ? ["background"] : []))
    }

    static func parse(_ line: String) -> Event {
        let fields = line.split(separator: " ", maxSplits: 2).map(String.init)
        let number = fields.count > 1 ? Int(fields[1]) : nil
        switch (fields.first, number) {
        case ("R", let number?): return .ready(number)
        case ("C", let number?) where fields.count == 3 && UInt64(fields[2]) != nil:
            return .committed(number, digest: UInt64(fields[2])!)
        case ("P", let number?): return .compactionBegan(number)
        case ("p", let number?): return .compactionEnded(number)
        default: return .failed(line)
        }
    }

    /// Waits until an event satisfies `predicate`, the child's output ends, or `timeout` passes.
    func waitFor(timeout: TimeInterval, _ predicate: (Event) -> Bool) {
        child.waitFor(timeout: timeout) { predicate(Self.parse($0)) }
    }

    /// Kills the child with SIGKILL and waits until it is gone and its output read.
    /// - Returns: every event it reported.
    func kill() -> [Event] {
        child.finish(kill: true).map(Self.parse)
    }
}
