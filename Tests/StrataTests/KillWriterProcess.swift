import Foundation

/// A running `StrataKillWriter` child and the lines it has printed so far.
///
/// A reader thread collects the child's standard output; `waitFor` lets the test wait for an
/// event, and after `kill()` every line written before the kill has been collected (the reader
/// stops only at end of file). Thread-safe.
final class KillWriterProcess: @unchecked Sendable {
    /// One line of the child's protocol (see Tests/KillWriter/main.swift).
    enum Event: Equatable {
        case ready(Int)
        case committed(Int, digest: UInt64)
        case compactionBegan(Int)
        case compactionEnded(Int)
        case failed(String)
    }

    private let process = Process()
    private let output = Pipe()
    private let condition = NSCondition()
    private var events: [Event] = []
    private var ended = false
    private var partial = ""

    /// The built `StrataKillWriter`: it sits beside the test bundle.
    static var executable: URL {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL
        return bundle.deletingLastPathComponent().appendingPathComponent("StrataKillWriter")
    }

    /// Starts the child on `directory` with the workload of `seed`.
    init(directory: URL, seed: UInt64, segmentSize: Int, compactEvery: Int, lastCommit: Int) throws {
        process.executableURL = Self.executable
        process.arguments = [directory.path, "\(seed)", "\(segmentSize)", "\(compactEvery)", "\(lastCommit)"]
        process.standardOutput = output
        try process.run()
        let reader = Thread { [self] in readUntilEnd() }
        reader.start()
    }

    private func readUntilEnd() {
        let handle = output.fileHandleForReading
        while true {
            let data = handle.availableData
            condition.lock()
            if data.isEmpty {
                ended = true
                condition.broadcast()
                condition.unlock()
                return
            }
            partial += String(decoding: data, as: UTF8.self)
            while let newline = partial.firstIndex(of: "\n") {
                events.append(Self.parse(String(partial[..<newline])))
                partial = String(partial[partial.index(after: newline)...])
            }
            condition.broadcast()
            condition.unlock()
        }
    }

    private static func parse(_ line: String) -> Event {
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
    /// - Returns: whether such an event arrived.
    @discardableResult
    func waitFor(timeout: TimeInterval, _ predicate: (Event) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        condition.lock()
        defer { condition.unlock() }
        while true {
            if events.contains(where: predicate) { return true }
            if ended || !condition.wait(until: deadline) { return events.contains(where: predicate) }
        }
    }

    /// Kills the child with SIGKILL (if it still runs) and waits until it is gone and its
    /// output is read to the end.
    /// - Returns: every event it printed.
    func kill() -> [Event] {
        if process.isRunning { Foundation.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        condition.lock()
        defer { condition.unlock() }
        while !ended { condition.wait() }
        return events
    }

    /// Whether the child ended by itself (rather than being killed).
    var exitedByItself: Bool {
        process.terminationReason == .exit
    }
}
